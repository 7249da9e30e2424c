// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_bench.ko: the benchmark of bench_core.c, in the kernel.
 *
 * The module parameters (writable in /sys/module/rbtree_bench/parameters)
 * say what to measure; a write to /sys/kernel/debug/rbtree_bench/run runs
 * the benchmark in the writer's context, which the writer may pin to one
 * CPU, and returns when it is done; reading the file then gives the results
 * of the last run in the format described in bench.h.
 *
 *	insmod rbtree_bench.ko sizes=1000,10000 reps=5
 *	taskset -c 0 sh -c 'echo 1 > /sys/kernel/debug/rbtree_bench/run'
 *	cat /sys/kernel/debug/rbtree_bench/run
 *
 * Times are in cycles where there is a cycle counter (see bench_now()).
 * Under QEMU's TCG they are emulated: compare variants, not hosts.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/timex.h>

#include "../compat.h"
#include "bench.h"

/* A buffer the results are printed into; @len > @size once it overflowed. */
struct bench_out {
	char *buf;
	size_t size;
	size_t len;
};

static unsigned long sizes[BENCH_MAX_SIZES] = { 1000, 10000, 100000 };
static unsigned int nr_sizes = 3;
module_param_array(sizes, ulong, &nr_sizes, 0644);
MODULE_PARM_DESC(sizes, "Tree sizes in nodes (default 1000,10000,100000)");

static unsigned int reps = 5;
module_param(reps, uint, 0644);
MODULE_PARM_DESC(reps, "Timed repetitions after one warm-up, 1..100 (default 5)");

static unsigned long min_ops = 100000;
module_param(min_ops, ulong, 0644);
MODULE_PARM_DESC(min_ops, "Least operations timed per cell (default 100000)");

static unsigned long seed = 1;
module_param(seed, ulong, 0644);
MODULE_PARM_DESC(seed, "Seed of the random key orders (default 1)");

/* Results of the last run, and the lock that serialises runs and reads. */
static DEFINE_MUTEX(bench_mutex);
static char *bench_result;
static size_t bench_result_len;
static struct dentry *bench_dir;

/*
 * Under TCG the guest finds no reference to calibrate the TSC against and
 * falls back to the jiffies clocksource, useless for timing: count cycles
 * where there is a cycle counter.
 */
static bool bench_use_cycles;

u64 bench_now(void)
{
	return bench_use_cycles ? get_cycles() : ktime_get_ns();
}

void *bench_alloc(size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

void bench_free(void *p)
{
	kvfree(p);
}

void bench_yield(void)
{
	cond_resched();
}

void bench_mark_begin(void)
{
}

void bench_mark_end(const char *variant, const char *op, const char *order,
		    unsigned long n, bool record)
{
}

void bench_emit(struct bench_out *out, const char *fmt, ...)
{
	va_list args;

	if (out->len >= out->size)
		return;
	va_start(args, fmt);
	out->len += vsnprintf(out->buf + out->len, out->size - out->len, fmt,
			      args);
	va_end(args);
}

static ssize_t bench_run_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct bench_config cfg = {
		.nr_sizes = nr_sizes,
		.reps = reps,
		.min_ops = min_ops,
		.seed = seed,
		.clock = bench_use_cycles ? "cycles" : "ns",
	};
	struct bench_out out = { };
	int ret;

	memcpy(cfg.sizes, sizes, sizeof(cfg.sizes));
	/* bench_run() checks the rest; this bounds the buffer size */
	if (!reps || reps > BENCH_MAX_REPS)
		return -EINVAL;
	out.size = bench_output_size(&cfg);
	out.buf = kvmalloc(out.size, GFP_KERNEL);
	if (!out.buf)
		return -ENOMEM;

	mutex_lock(&bench_mutex);
	ret = bench_run(&cfg, &out);
	if (!ret && out.len >= out.size)
		ret = -EOVERFLOW;
	if (ret) {
		kvfree(out.buf);
	} else {
		kvfree(bench_result);
		bench_result = out.buf;
		bench_result_len = out.len;
	}
	mutex_unlock(&bench_mutex);

	return ret ? ret : count;
}

static ssize_t bench_run_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = simple_read_from_buffer(buf, count, ppos, bench_result,
				      bench_result_len);
	mutex_unlock(&bench_mutex);
	return ret;
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.read = bench_run_read,
	.write = bench_run_write,
	.llseek = default_llseek,
};

static int __init rbtree_bench_init(void)
{
	bench_use_cycles = get_cycles() != 0;
	bench_dir = debugfs_create_dir("rbtree_bench", NULL);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_run_fops);
	return 0;
}

static void __exit rbtree_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	kvfree(bench_result);
}

module_init(rbtree_bench_init);
module_exit(rbtree_bench_exit);

MODULE_DESCRIPTION("Benchmark of generic red-black tree APIs");
MODULE_LICENSE("GPL");
/* rbtree_inspector.ko's out-of-line Overstreet functions (kmod/Kbuild). */
MODULE_IMPORT_NS(RBTREE_INSPECTOR);
