/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included by a compile-fail case after its RB_DEFINE_INTERFACE(): a call
 * of the generated insert, so that the interface's build checks are
 * emitted, and the module boilerplate.
 */
#ifdef CF_CACHED	/* the case's container is struct cf_ccont */
struct cf_obj *cf_use(struct cf_ccont *c, struct cf_obj *o);
struct cf_obj *cf_use(struct cf_ccont *c, struct cf_obj *o)
#else
struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o);
struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o)
#endif
{
	return cf_insert(c, o);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
