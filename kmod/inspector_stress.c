// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the `stress` file of the trees whose lookups run
 * lockless (latch, mainline_rcu): lookups under fire, on a private tree of
 * the same API built by the tree's struct rbti_stress_ops.
 *
 * Keys are 4i (present: inserted first, never erased), 4i + 1 (absent:
 * never inserted) and 4i + 2 (churn: inserted and erased over and over by
 * the writers, so that the tree rotates under the readers), for i below
 * the run's key count (stress_keys). One reader kthread per online CPU and
 * as many writers, but no more writers than keys, each owning its own churn
 * keys; the readers look up present and absent keys alternately, lockless, until
 * the lookups asked for are done, the time limit (stress_seconds) passes,
 * the writer of the file is killed or the module unloads. Every thread is
 * stopped and the private tree freed before the write returns; erased
 * nodes are freed after an RCU grace period by the API's side.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "inspector_fe.h"

static unsigned int stress_seconds = 120;
module_param(stress_seconds, uint, 0600);
MODULE_PARM_DESC(stress_seconds, "time limit of one stress run, in seconds (default 120)");

static unsigned int stress_keys = 512;
module_param(stress_keys, uint, 0600);
MODULE_PARM_DESC(stress_keys, "keys of each kind in a stress run's private tree, 1 to 65536 (default 512)");

#define RBTI_STRESS_KEYS_MAX	65536
#define RBTI_STRESS_MAX		1000000000ULL
/* A writer sleeps RBTI_STRESS_PAUSE_US (at least) after so many writes. */
#define RBTI_STRESS_BURST	16
#define RBTI_STRESS_PAUSE_US	20
/* Lookups a reader claims at a time, and between two looks at the clock. */
#define RBTI_STRESS_CHUNK	256

/* Set at module unload: every stress in progress ends at once. */
static bool rbti_stress_stopping;

/**
 * struct rbti_stress_run - one run of `stress`
 * @ops: the API's private trees
 * @tree: the private tree
 * @left: lookups not yet claimed by a reader
 * @deadline: jiffies at which the time limit passes
 * @stop: the readers stop (the writer of the file was killed)
 * @readers_left: readers still looking up
 * @readers_total: readers started
 * @readers_done: completed when @readers_left reaches 0
 * @writers_stop: the writers stop (every reader is done)
 * @keys: i in the keys 4i, 4i + 1 and 4i + 2 runs below this
 * @nwriters: writer threads, at most @keys
 * @lookups: the counters of DEBUGFS.md's `stress` file, summed over the
 *	readers as each ends
 * @present: see @lookups
 * @absent: see @lookups
 * @retries: see @lookups
 * @worst_retry: see @lookups
 * @wrong: see @lookups
 * @absent_found: see @lookups
 * @missed: see @lookups
 * @writes: see @lookups
 * @timeout: see @lookups
 * @err: a writer's insert failed (-ENOMEM)
 */
struct rbti_stress_run {
	const struct rbti_stress_ops *ops;
	void *tree;
	atomic64_t left;
	unsigned long deadline;
	bool stop;
	atomic_t readers_left, readers_total;
	struct completion readers_done;
	bool writers_stop;
	unsigned int keys;
	unsigned int nwriters;
	atomic64_t lookups, present, absent, retries, wrong, absent_found;
	atomic64_t missed, writes;
	atomic_long_t worst_retry;
	bool timeout;
	int err;
};

/**
 * struct rbti_stress_thread - one reader or writer
 * @run: its run
 * @task: the kthread
 * @index: writers: which churn keys are its own
 */
struct rbti_stress_thread {
	struct rbti_stress_run *run;
	struct task_struct *task;
	unsigned int index;
};

/* Sleep until kthread_stop(): a thread never exits before it is stopped. */
static void rbti_stress_park(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

static bool rbti_stress_over(struct rbti_stress_run *r)
{
	if (READ_ONCE(r->stop) || READ_ONCE(rbti_stress_stopping))
		return true;
	if (time_after(jiffies, r->deadline)) {
		WRITE_ONCE(r->timeout, true);
		return true;
	}
	return false;
}

/* Up to RBTI_STRESS_CHUNK lookups of the budget, or 0 if none is left. */
static unsigned long rbti_stress_claim(struct rbti_stress_run *r)
{
	s64 left = atomic64_sub_return(RBTI_STRESS_CHUNK, &r->left);

	if (left + RBTI_STRESS_CHUNK <= 0)
		return 0;
	return min_t(s64, RBTI_STRESS_CHUNK, left + RBTI_STRESS_CHUNK);
}

static int rbti_stress_reader(void *arg)
{
	struct rbti_stress_thread *th = arg;
	struct rbti_stress_run *r = th->run;
	u64 lookups = 0, present = 0, retried = 0, wrong = 0;
	u64 absent_found = 0, missed = 0;
	unsigned long chunk, i, retries, worst = 0;
	bool gave_up = false;
	s64 key, found;
	long old;
	int ret;

	while (!gave_up && !rbti_stress_over(r) &&
	       (chunk = rbti_stress_claim(r))) {
		for (i = 0; i < chunk; i++) {
			bool want = !(lookups & 1);

			key = 4 * (s64)get_random_u32_below(r->keys) +
			      (want ? 0 : 1);
			ret = r->ops->lookup(r->tree, key, &found, &retries);
			lookups++;
			present += want;
			retried += retries > 0;
			worst = max(worst, retries);
			if (ret == -EAGAIN) {
				/* A retry without end: counted, and no more. */
				missed++;
				gave_up = true;
				break;
			}
			if (ret && found != key)
				wrong++;
			else if (ret && !want)
				absent_found++;
			else if (!ret && want)
				missed++;
		}
		cond_resched();
	}
	atomic64_add(lookups, &r->lookups);
	atomic64_add(present, &r->present);
	atomic64_add(lookups - present, &r->absent);
	atomic64_add(retried, &r->retries);
	atomic64_add(wrong, &r->wrong);
	atomic64_add(absent_found, &r->absent_found);
	atomic64_add(missed, &r->missed);
	old = atomic_long_read(&r->worst_retry);
	while ((unsigned long)old < worst &&
	       !atomic_long_try_cmpxchg(&r->worst_retry, &old, worst))
		;
	if (atomic_dec_and_test(&r->readers_left))
		complete_all(&r->readers_done);
	rbti_stress_park();
	return 0;
}

/*
 * A writer toggles its own churn keys (4i + 2 with i = index modulo the
 * number of writers) in turn, until every reader is done.
 */
static int rbti_stress_writer(void *arg)
{
	struct rbti_stress_thread *th = arg;
	struct rbti_stress_run *r = th->run;
	unsigned long *in, writes = 0;
	unsigned int i = th->index;

	in = bitmap_zalloc(r->keys, GFP_KERNEL);
	if (!in)
		WRITE_ONCE(r->err, -ENOMEM);
	while (in && !READ_ONCE(r->writers_stop)) {
		s64 key = 4 * (s64)i + 2;

		if (test_bit(i, in)) {
			r->ops->erase(r->tree, key);
			clear_bit(i, in);
		} else if (!r->ops->insert(r->tree, key)) {
			set_bit(i, in);
		} else {
			WRITE_ONCE(r->err, -ENOMEM);
			break;
		}
		writes++;
		i += r->nwriters;
		if (i >= r->keys)
			i = th->index;
		/*
		 * A pause after each burst of writes: writers that never
		 * pause would keep every lookup retrying (the readers would
		 * make no progress, which a seqcount does not promise
		 * against an endless stream of writes).
		 */
		if (writes % RBTI_STRESS_BURST)
			cond_resched();
		else
			usleep_range(RBTI_STRESS_PAUSE_US,
				     2 * RBTI_STRESS_PAUSE_US);
	}
	bitmap_free(in);
	atomic64_add(writes, &r->writes);
	rbti_stress_park();
	return 0;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/* Fails the stress threads' creations the debugfs attr says (DEBUGFS.md). */
static DECLARE_FAULT_ATTR(rbti_fail_stress_spawn);

/**
 * rbti_stress_fault_init() - create the fault attr `fail_stress_spawn`
 * @dir: the module's debugfs directory
 *
 * Only on kernels with CONFIG_FAULT_INJECTION_DEBUG_FS: a failure to
 * create it leaves the module without it, as debugfs failures do.
 */
void rbti_stress_fault_init(struct dentry *dir)
{
	fault_create_debugfs_attr("fail_stress_spawn", dir,
				  &rbti_fail_stress_spawn);
}

static bool rbti_stress_spawn_fails(void)
{
	return should_fail(&rbti_fail_stress_spawn, 1);
}
#else
static bool rbti_stress_spawn_fails(void)
{
	return false;
}
#endif

/*
 * kthread_create() of one stress thread; or, where the fault attr
 * `fail_stress_spawn` says so, the failure kthread_create() gives when
 * the creating task is killed while it waits for kthreadd.
 */
static struct task_struct *rbti_stress_create(int (*fn)(void *),
					      struct rbti_stress_thread *th,
					      const char *what, int cpu)
{
	if (rbti_stress_spawn_fails())
		return ERR_PTR(-EINTR);
	return kthread_create(fn, th, "rbti-stress-%s/%d", what, cpu);
}

/*
 * Create @n threads of @fn, bound one to each online CPU (cpus_read_lock()
 * held), not yet woken. Returns 0, or the error of the first that could
 * not be created; *@made says how many were.
 */
static int rbti_stress_spawn(struct rbti_stress_run *r,
			     struct rbti_stress_thread *th, unsigned int n,
			     int (*fn)(void *), const char *what,
			     unsigned int *made)
{
	unsigned int i = 0;
	int cpu;

	*made = 0;
	for_each_online_cpu(cpu) {
		if (i == n)
			break;
		th[i].run = r;
		th[i].index = i;
		th[i].task = rbti_stress_create(fn, &th[i], what, cpu);
		if (IS_ERR(th[i].task))
			return PTR_ERR(th[i].task);
		kthread_bind(th[i].task, cpu);
		*made = ++i;
	}
	return 0;
}

/* The result text of a run, "key value" lines (kvmalloc()ed) or NULL. */
static char *rbti_stress_report(struct rbti_stress_run *r, size_t *len)
{
	struct rbti_buf b = { .max = SZ_4K };
	u64 wrong = atomic64_read(&r->wrong);
	u64 absent_found = atomic64_read(&r->absent_found);
	u64 missed = atomic64_read(&r->missed);

	rbti_buf_printf(&b, "lookups %lld\npresent %lld\nabsent %lld\n",
			atomic64_read(&r->lookups), atomic64_read(&r->present),
			atomic64_read(&r->absent));
	rbti_buf_printf(&b, "retries %lld\nworst_retry %lu\n",
			atomic64_read(&r->retries),
			(unsigned long)atomic_long_read(&r->worst_retry));
	rbti_buf_printf(&b, "wrong %llu\nabsent_found %llu\nmissed %llu\n",
			wrong, absent_found, missed);
	rbti_buf_printf(&b, "writes %lld\ntimeout %d\nok %d\n",
			atomic64_read(&r->writes), r->timeout,
			!wrong && !absent_found && !missed && !r->timeout);
	rbti_buf_printf(&b, "readers %u\nwriters %u\nkeys %u\n",
			atomic_read(&r->readers_total), r->nwriters, r->keys);
	if (b.err) {
		kvfree(b.buf);
		return NULL;
	}
	*len = b.len;
	return b.buf;
}

/*
 * Wait for the readers, a second at a time (a task blocked for long is a
 * hung task to the kernel); -EINTR if the waiting task is killed.
 */
static int rbti_stress_wait(struct rbti_stress_run *r)
{
	long ret;

	do {
		ret = wait_for_completion_killable_timeout(&r->readers_done,
							   HZ);
	} while (!ret);
	return ret < 0 ? -EINTR : 0;
}

/*
 * Create the readers and writers and wake them, all inside
 * cpus_read_lock(), so that the CPUs counted are those they are bound to
 * when they start. Returns 0 or the spawn error (nothing left running).
 */
static int rbti_stress_start(struct rbti_stress_run *r,
			     struct rbti_stress_thread *readers,
			     struct rbti_stress_thread *writers,
			     unsigned int *nr, unsigned int *nw)
{
	unsigned int ncpus, i;
	int ret;

	*nw = 0;
	cpus_read_lock();
	ncpus = num_online_cpus();
	ret = rbti_stress_spawn(r, readers, ncpus, rbti_stress_reader, "r",
				nr);
	if (!ret)
		ret = rbti_stress_spawn(r, writers, min(ncpus, r->keys),
					rbti_stress_writer, "w", nw);
	if (ret) {
		cpus_read_unlock();
		/* Never woken: kthread_stop() ends them before they run. */
		for (i = 0; i < *nr; i++)
			kthread_stop(readers[i].task);
		for (i = 0; i < *nw; i++)
			kthread_stop(writers[i].task);
		return ret;
	}
	r->nwriters = *nw;
	atomic_set(&r->readers_left, *nr);
	atomic_set(&r->readers_total, *nr);
	r->deadline = jiffies + (unsigned long)READ_ONCE(stress_seconds) * HZ;
	for (i = 0; i < *nw; i++)
		wake_up_process(writers[i].task);
	for (i = 0; i < *nr; i++)
		wake_up_process(readers[i].task);
	cpus_read_unlock();
	return 0;
}

/* Run a stress of @lookups lookups; the report in *@text. */
static int rbti_stress_run(const struct rbti_stress_ops *ops, u64 lookups,
			   char **text, size_t *len)
{
	struct rbti_stress_thread *readers, *writers = NULL;
	struct rbti_stress_run *r;
	unsigned int nr, nw, i;
	int ret = -ENOMEM;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	/* Room for every possible CPU: the online ones are counted later. */
	readers = kcalloc(nr_cpu_ids, sizeof(*readers), GFP_KERNEL);
	writers = kcalloc(nr_cpu_ids, sizeof(*writers), GFP_KERNEL);
	if (!r || !readers || !writers)
		goto free;
	r->ops = ops;
	r->keys = clamp_t(unsigned int, READ_ONCE(stress_keys), 1,
			  RBTI_STRESS_KEYS_MAX);
	r->tree = ops->create();
	if (!r->tree)
		goto free;
	for (i = 0; i < r->keys; i++) {
		ret = ops->insert(r->tree, 4 * (s64)i);
		if (ret)
			goto destroy;
		cond_resched();
	}
	atomic64_set(&r->left, lookups);
	init_completion(&r->readers_done);

	ret = rbti_stress_start(r, readers, writers, &nr, &nw);
	if (ret)
		goto destroy;

	ret = rbti_stress_wait(r);
	WRITE_ONCE(r->stop, true);
	/* Killed: the readers see @stop within a chunk of lookups. */
	while (!wait_for_completion_timeout(&r->readers_done, HZ))
		;
	WRITE_ONCE(r->writers_stop, true);
	for (i = 0; i < nr; i++)
		kthread_stop(readers[i].task);
	for (i = 0; i < nw; i++)
		kthread_stop(writers[i].task);
	if (!ret)
		ret = r->err;
	if (!ret) {
		*text = rbti_stress_report(r, len);
		if (!*text)
			ret = -ENOMEM;
	}
destroy:
	ops->destroy(r->tree);
free:
	kfree(writers);
	kfree(readers);
	kfree(r);
	return ret;
}

static ssize_t rbti_stress_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;
	struct rbti_tree *t = rf->tree;
	char *buf, *tok, *rest, *text = NULL;
	size_t len = 0;
	u64 lookups;
	int ret;

	buf = rbti_copy_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rest = buf;
	tok = rbti_token(&rest);
	ret = -EINVAL;
	if (tok && !rbti_token(&rest) && !kstrtou64(tok, 10, &lookups) &&
	    lookups >= 1 && lookups <= RBTI_STRESS_MAX)
		ret = 0;
	kvfree(buf);
	if (ret)
		return ret;
	if (!mutex_trylock(&t->stress_lock))
		return -EBUSY;
	ret = rbti_stress_run(t->ops->stress, lookups, &text, &len);
	mutex_unlock(&t->stress_lock);
	if (ret)
		return ret;
	rbti_result_set(file, text, len, ppos);
	return count;
}

const struct file_operations rbti_stress_fops = {
	.owner = THIS_MODULE,
	.open = rbti_result_open,
	.read = rbti_result_read,
	.write = rbti_stress_write,
	.llseek = default_llseek,
	.release = rbti_result_release,
};

/**
 * rbti_stress_stop_all() - make every stress in progress end now
 *
 * Called at module unload, before the debugfs files go (which waits for
 * the writes in progress): the readers see the flag within a chunk of
 * lookups.
 */
void rbti_stress_stop_all(void)
{
	WRITE_ONCE(rbti_stress_stopping, true);
}
