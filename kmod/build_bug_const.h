/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-time checks that a value is a compile-time constant.
 *
 * Daniel Santos proposed BUILD_BUG_ON_NON_CONST() and
 * BUILD_BUG_ON_NON_CONST2() for <linux/bug.h> in 2012 together with his
 * generic red-black tree; neither is in 6.1's or 6.12's
 * <linux/build_bug.h>.  They are defined here only if the kernel does not
 * provide them, so that a kernel definition always wins.
 *
 * The meaning differs from the 2012 posting.  There, both were
 * BUILD_BUG_ON_MSG(!__builtin_constant_p(exp)), BUILD_BUG_ON_NON_CONST2()
 * only enabled on gcc versions whose __builtin_constant_p() handled struct
 * members and dereferenced pointers.  Such a check is made after
 * optimisation, so it passes any value the optimiser happens to pin down:
 * with gcc 12 -O2, "p = get(); if (!p) return; BUILD_BUG_ON_NON_CONST2(p)"
 * built, as p is then known to be non-NULL.
 *
 * Here each check is the size of a static array.  A static object's size
 * must be a constant where it is declared, so the compiler decides while it
 * parses, before any optimisation: __builtin_constant_p() is 1 there only
 * for what the front end folds (integer constant expressions; for the
 * pointer check also address constants), never for a variable, whatever
 * the optimiser later learns about it.  Anything else fails the build, with
 * an error that names the array: "storage size of
 * 'BUILD_BUG_ON_NON_CONST2_failed' isn't constant" (or, without
 * optimisation, "size of array ... is negative").  The check holds in code
 * that is never called, unlike BUILD_BUG_ON().  <linux/compiler.h>'s
 * statically_true() is __builtin_constant_p(x) && (x), evaluated wherever
 * it is used, and __is_constexpr() rejects address constants, so neither
 * does this job.
 */
#ifndef _RBTREE_BUILD_BUG_CONST_H
#define _RBTREE_BUILD_BUG_CONST_H

#include <linux/build_bug.h>
#include <linux/compiler.h>

/* A static array of size 1 if @ok is folded to true while parsing. */
#define __build_bug_on_non_const(ok, name)				\
	((void)({							\
		static const char name[(ok) ? 1 : -1] __maybe_unused;	\
		0;							\
	}))

/*
 * A pointer's test against NULL: gcc warns on !&object (-Waddress), sparse
 * on "p == 0" (a plain integer as NULL pointer).
 */
#ifdef __CHECKER__
#define __build_bug_null(exp) (!(exp))
#else
#define __build_bug_null(exp) ((exp) == 0)
#endif

#ifndef BUILD_BUG_ON_NON_CONST
/**
 * BUILD_BUG_ON_NON_CONST - break the build unless a value is a constant
 * @exp: integer expression that must be known at compile time
 *
 * Fails the build, naming BUILD_BUG_ON_NON_CONST_failed, unless @exp is an
 * integer constant expression (or something else the compiler folds to a
 * constant while parsing, before optimisation).  A variable fails, even a
 * const one, and even where the optimiser could prove its value.
 *
 * __builtin_constant_p() is false for the address of an object or a
 * function, even though the linker resolves it; use
 * BUILD_BUG_ON_NON_CONST2() for pointers.
 */
#define BUILD_BUG_ON_NON_CONST(exp)					\
	__build_bug_on_non_const(__builtin_constant_p(exp),		\
				 BUILD_BUG_ON_NON_CONST_failed)
#endif

#ifndef BUILD_BUG_ON_NON_CONST2
/**
 * BUILD_BUG_ON_NON_CONST2 - break the build unless a pointer is a constant
 * @exp: pointer (or integer) expression that must be known at compile time
 *
 * Like BUILD_BUG_ON_NON_CONST(), but also accepts address constants: NULL,
 * &static_object, a function name.  __builtin_constant_p() rejects an
 * address whose value only the linker knows, but folds a test of that
 * address against NULL; a pointer held in a variable cannot be folded so,
 * and fails even where the optimiser proves it non-NULL.  So does the
 * address of a weak symbol (it may be NULL).
 *
 * Fails the build naming BUILD_BUG_ON_NON_CONST2_failed.
 */
#define BUILD_BUG_ON_NON_CONST2(exp)					\
	__build_bug_on_non_const(__builtin_constant_p(__build_bug_null(exp)), \
				 BUILD_BUG_ON_NON_CONST2_failed)
#endif

#endif /* _RBTREE_BUILD_BUG_CONST_H */
