// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: parsing the commands written to the debugfs files
 * (DEBUGFS.md, "Keys and input parsing"). What a tree takes comes from its
 * ops table: pairs `KEY VALUE` on an %RBTI_VALUE tree, `START LAST` with
 * START <= LAST on an %RBTI_INTERVAL tree, hints where the API has them.
 */
#include <linux/ctype.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector_fe.h"

/* Keys are separated by ASCII space, tab and newline only. */
static bool rbti_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Cut the next separated token out of *s; NULL if none left. */
char *rbti_token(char **s)
{
	char *tok = *s, *end;

	while (rbti_is_sep(*tok))
		tok++;
	if (!*tok)
		return NULL;
	for (end = tok; *end && !rbti_is_sep(*end); end++)
		;
	if (*end)
		*end++ = '\0';
	*s = end;
	return tok;
}

static int rbti_parse_key(const char *tok, s64 *key)
{
	/* Decimal only; out of range (-ERANGE) is -EINVAL too. */
	return kstrtos64(tok, 10, key) ? -EINVAL : 0;
}

/* At least @min and at most @max keys, their number in *@n. */
int rbti_parse_some(char *s, s64 *keys, unsigned int min, unsigned int max,
		    unsigned int *n)
{
	char *tok;

	for (*n = 0; (tok = rbti_token(&s)); (*n)++)
		if (*n == max || rbti_parse_key(tok, &keys[*n]))
			return -EINVAL;
	return *n < min ? -EINVAL : 0;
}

/* Exactly @n keys and nothing else. */
int rbti_parse_args(char *s, s64 *keys, unsigned int n)
{
	unsigned int got;

	return rbti_parse_some(s, keys, n, n, &got);
}

/* Exactly `START LAST`, START <= LAST. */
int rbti_parse_interval(char *s, s64 *start, s64 *last)
{
	s64 args[2];

	if (rbti_parse_args(s, args, 2) || args[0] > args[1])
		return -EINVAL;
	*start = args[0];
	*last = args[1];
	return 0;
}

/* An `insert` token: KEY, or KEY@HINTKEY where @hints. */
static int rbti_parse_insert(char *tok, struct rbti_op *op, bool hints)
{
	char *at = strchr(tok, '@');

	op->cmd = 'i';
	op->hinted = at;
	if (at) {
		if (!hints)
			return -EINVAL;
		*at = '\0';
		if (rbti_parse_key(at + 1, &op->hint))
			return -EINVAL;
	}
	return rbti_parse_key(tok, &op->key);
}

/*
 * `insert`: any number of keys, at least one, or of `KEY VALUE` pairs on a
 * value tree (START <= LAST on an interval tree); *opsp to be kvfree()d.
 */
int rbti_parse_keys(const struct rbti_tree *t, char *s, struct rbti_op **opsp,
		    size_t *np)
{
	const unsigned int flags = t->ops->flags;
	/* Each key takes a character and all but the last a separator. */
	size_t n = 0, max = strlen(s) / 2 + 1;
	struct rbti_op *ops;
	char *tok;

	ops = kvmalloc_array(max, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while ((tok = rbti_token(&s))) {
		struct rbti_op *op = &ops[n++];

		if (rbti_parse_insert(tok, op, t->ops->insert_hint))
			goto inval;
		op->value = 0;
		if (!(flags & RBTI_VALUE))
			continue;
		tok = rbti_token(&s);
		if (!tok || strchr(tok, '@') ||
		    kstrtos64(tok, 10, &op->value))
			goto inval;
		if ((flags & RBTI_INTERVAL) && op->key > op->value)
			goto inval;
	}
	if (!n)
		goto inval;
	*opsp = ops;
	*np = n;
	return 0;
inval:
	kvfree(ops);
	return -EINVAL;
}

/*
 * Copy in a command: at most 256 KiB, NUL-terminated, with no NUL of its
 * own. Returns a buffer to kvfree() or an ERR_PTR().
 */
char *rbti_copy_command(const char __user *ubuf, size_t count)
{
	char *buf;

	if (count > RBTI_MAX_WRITE)
		return ERR_PTR(-E2BIG);
	buf = kvmalloc(count + 1, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(buf, ubuf, count)) {
		kvfree(buf);
		return ERR_PTR(-EFAULT);
	}
	buf[count] = '\0';
	if (strlen(buf) != count) {
		kvfree(buf);
		return ERR_PTR(-EINVAL);
	}
	return buf;
}

int rbti_cmp_s64(const void *a, const void *b)
{
	return rbti_cmp_keys(*(const s64 *)a, *(const s64 *)b);
}

/*
 * How many keys a batch command takes on tree @t: 0 if it does not apply.
 * `i` takes `KEY VALUE` on a value tree; `e` and `o` take `START LAST` on
 * an interval tree (and `o` nothing elsewhere); `n` needs a near query,
 * `I` and `N` a hinting API.
 */
static unsigned int rbti_op_args(const struct rbti_tree *t, char cmd)
{
	const unsigned int flags = t->ops->flags;

	switch (cmd) {
	case 'i':
		return flags & RBTI_VALUE ? 2 : 1;
	case 'f':
		return 1;
	case 'e':
		return flags & RBTI_INTERVAL ? 2 : 1;
	case 'n':
		return t->ops->near ? 1 : 0;
	case 'o':
		return flags & RBTI_INTERVAL ? 2 : 0;
	case 'I':
	case 'N':
		return t->ops->insert_hint ? 2 : 0;
	}
	return 0;
}

/*
 * One "CMD KEY..." per line (see rbti_op_args()), blank lines ignored;
 * *opsp to be kvfree()d.
 */
int rbti_parse_ops(const struct rbti_tree *t, char *s, struct rbti_op **opsp,
		   size_t *np)
{
	size_t n = 0, max = 1;
	struct rbti_op *ops;
	char *line, *cmd;
	unsigned int nargs;
	s64 args[2] = { 0, 0 };

	for (line = s; (line = strchr(line, '\n')); line++)
		max++;
	ops = kvmalloc_array(max, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while ((line = strsep(&s, "\n"))) {
		struct rbti_op *op = &ops[n];

		cmd = rbti_token(&line);
		if (!cmd)
			continue;
		nargs = strlen(cmd) == 1 ? rbti_op_args(t, cmd[0]) : 0;
		if (!nargs || rbti_parse_args(line, args, nargs))
			goto inval;
		op->hinted = cmd[0] == 'I' || cmd[0] == 'N';
		op->cmd = tolower(cmd[0]);
		op->key = args[0];
		op->hint = op->hinted ? args[1] : 0;
		op->value = op->hinted ? 0 : args[1];
		if ((t->ops->flags & RBTI_INTERVAL) && nargs == 2 &&
		    op->key > op->value)
			goto inval;
		args[1] = 0;
		n++;
	}
	if (!n)
		goto inval;
	*opsp = ops;
	*np = n;
	return 0;
inval:
	kvfree(ops);
	return -EINVAL;
}
