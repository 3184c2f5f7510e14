/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured-window markers of rlwork, shared with the instruction
 * profiler (runners/plugins/insn-profile.c, docs/profile.md).
 *
 * A marker is a 9-byte NOP, `nopw DISP(%rax,%rax,1)` (66 0f 1f 84 00 and
 * a 32-bit displacement), whose displacement says what it marks. It does
 * nothing on any x86-64 CPU and touches no memory, so rlwork runs the
 * same with or without the profiler; the profiler recognises the bytes
 * when QEMU translates them. Before the start marker rlwork runs 32 bit
 * markers, the window's tag most significant bit first: the profiler
 * names the window by it, and the runner finds a point's window by it.
 */
#ifndef RLWORK_INSN_MARK_H
#define RLWORK_INSN_MARK_H

#define INSN_MARK_PREFIX	"\x66\x0f\x1f\x84\x00"
#define INSN_MARK_PREFIX_LEN	5
#define INSN_MARK_LEN		9

#define INSN_MARK_START		0x524c5301u	/* "RL" S 1 */
#define INSN_MARK_END		0x524c5302u
#define INSN_MARK_BIT0		0x524c5310u
#define INSN_MARK_BIT1		0x524c5311u

/*
 * One marker, as bytes: an assembler may encode a nopw with a 32-bit
 * displacement another way, and the profiler matches bytes.
 */
#define insn_mark(disp)							\
	__asm__ volatile(".byte 0x66,0x0f,0x1f,0x84,0x00\n\t.long %c0"	\
			 : : "i"(disp))

#endif
