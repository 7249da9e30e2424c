/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-time checks that a value is a compile-time constant.
 *
 * Daniel Santos proposed BUILD_BUG_ON_NON_CONST() and
 * BUILD_BUG_ON_NON_CONST2() for <linux/bug.h> in 2012 together with his
 * generic red-black tree; neither is in 6.1's <linux/build_bug.h>.  They
 * are defined here only if the kernel does not provide them, so that a
 * kernel definition always wins.
 *
 * The meaning differs from the 2012 posting.  There, BUILD_BUG_ON_NON_CONST2()
 * was BUILD_BUG_ON_NON_CONST() itself, only enabled on gcc versions whose
 * __builtin_constant_p() handled struct members and dereferenced pointers.
 * Here it is the check for pointers: it accepts address constants, which
 * __builtin_constant_p() rejects on every gcc.  Neither is compiled out
 * without __OPTIMIZE__ (the kernel is never built that way).
 *
 * Both rely on the optimiser: like BUILD_BUG_ON() they only work when the
 * code that uses them is compiled with optimisation, which the kernel
 * always is, and only where that code is actually emitted (a check in a
 * static inline function that nobody calls never fires).
 */
#ifndef _RBTREE_BUILD_BUG_CONST_H
#define _RBTREE_BUILD_BUG_CONST_H

#include <linux/build_bug.h>

#ifndef BUILD_BUG_ON_NON_CONST
/**
 * BUILD_BUG_ON_NON_CONST - break the build unless a value is a constant
 * @exp: integer expression that must be known at compile time
 *
 * Fails the build with "BUILD_BUG_ON_NON_CONST failed: @exp" when the
 * compiler cannot reduce @exp to a constant, after inlining and constant
 * propagation.  That makes it stronger than an integer constant expression
 * check in one way (a value loaded from a static const object, or passed
 * into an __always_inline function, still counts) and weaker in another
 * (it says nothing about code that is never emitted).
 *
 * __builtin_constant_p() is false for the address of an object or a
 * function, even though the linker resolves it; use
 * BUILD_BUG_ON_NON_CONST2() for pointers.
 */
#define BUILD_BUG_ON_NON_CONST(exp)					\
	BUILD_BUG_ON_MSG(!__builtin_constant_p(exp),			\
			 "BUILD_BUG_ON_NON_CONST failed: " #exp)
#endif

#ifndef BUILD_BUG_ON_NON_CONST2
/**
 * BUILD_BUG_ON_NON_CONST2 - break the build unless a pointer is a constant
 * @exp: pointer (or integer) expression that must be known at compile time
 *
 * Like BUILD_BUG_ON_NON_CONST(), but also accepts address constants such
 * as &static_object, a function name or NULL, and values read through
 * pointers to static const objects.  __builtin_constant_p() rejects an
 * address whose value only the linker knows, but it does fold a test of
 * that address against NULL; the test goes through a local copy so that
 * -Waddress does not complain that the address of a named object is never
 * NULL.  A pointer held in a variable whose value the compiler cannot see
 * still fails, which is the point.
 *
 * Fails the build with "BUILD_BUG_ON_NON_CONST2 failed: @exp".
 */
#define BUILD_BUG_ON_NON_CONST2(exp)					\
	BUILD_BUG_ON_MSG(!({						\
		__auto_type __bbonc2 = ((void)0, (exp));		\
		__builtin_constant_p(!__bbonc2);			\
	}), "BUILD_BUG_ON_NON_CONST2 failed: " #exp)
#endif

#endif /* _RBTREE_BUILD_BUG_CONST_H */
