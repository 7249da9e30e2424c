/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's speculation-mitigation thunks, for the userspace benchmark
 * (PROFILE=retpoline and PROFILE=rethunk in ./Makefile).  Instruction for
 * instruction those of Linux 6.1's arch/x86/lib/retpoline.S as a Debian
 * 6.1 kernel patches them at boot:
 *
 * - __x86_indirect_thunk_<reg>: the generic retpoline (RETPOLINE macro;
 *   spectre_v2 "Mitigation: Retpolines"), 32-byte aligned as
 *   RETPOLINE_THUNK_SIZE.  Its RET is itself a return thunk under
 *   BENCH_RETHUNK, as the kernel's RET macro is with CONFIG_RETHUNK.
 * - __x86_return_thunk (BENCH_RETHUNK only): SRSO "safe RET"
 *   (srso_return_thunk: call srso_safe_ret; srso_safe_ret: lea 8(%rsp),
 *   %rsp; ret), what the kernel's apply_returns() points every return at
 *   on an SRSO-affected Zen.  The Zen 3/4 variant (srso_alias_*) is the
 *   same instructions at addresses chosen to alias in the BTB, which a
 *   userspace link cannot reproduce.
 */
	.text

#ifdef BENCH_RETHUNK
#define RET	jmp __x86_return_thunk
#else
#define RET	ret; int3
#endif

.macro THUNK reg
	.p2align 5
	.globl __x86_indirect_thunk_\reg
	.type __x86_indirect_thunk_\reg, @function
__x86_indirect_thunk_\reg:
	call	.Ldo_rop_\@
.Lspec_trap_\@:
	pause
	lfence
	jmp	.Lspec_trap_\@
.Ldo_rop_\@:
	mov	%\reg, (%rsp)
	RET
	.size __x86_indirect_thunk_\reg, . - __x86_indirect_thunk_\reg
.endm

	THUNK rax
	THUNK rbx
	THUNK rcx
	THUNK rdx
	THUNK rsi
	THUNK rdi
	THUNK rbp
	THUNK r8
	THUNK r9
	THUNK r10
	THUNK r11
	THUNK r12
	THUNK r13
	THUNK r14
	THUNK r15

#ifdef BENCH_RETHUNK
	.p2align 6
	.globl srso_safe_ret
	.type srso_safe_ret, @function
srso_safe_ret:
	lea	8(%rsp), %rsp
	ret
	int3
	.size srso_safe_ret, . - srso_safe_ret

	.globl __x86_return_thunk
	.type __x86_return_thunk, @function
__x86_return_thunk:
	call	srso_safe_ret
	ud2
	.size __x86_return_thunk, . - __x86_return_thunk
#endif

	.section .note.GNU-stack, "", @progbits
