/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included by a compile-fail case after its RB_DEFINE_INTERFACE(): a call
 * of the generated insert, so that the interface's build checks are
 * emitted, and the module boilerplate.
 */
#ifndef CF_CONT
#define CF_CONT struct cf_cont
#endif

struct cf_obj *cf_use(CF_CONT *c, struct cf_obj *o);
struct cf_obj *cf_use(CF_CONT *c, struct cf_obj *o)
{
	return cf_insert(c, o);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
