//go:build amd64 && !purego

#include "textflag.h"

// MARK16 sets bits off..off+15 of R9 from the 16 bytes at off(SI): X1, X2, X3 hold '"', '\\' and
// 0x1f in every byte.
#define MARK16(off) \
	MOVOU	off(SI), X0 \
	MOVO	X0, X4 \
	PCMPEQB	X1, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X2, X5 \
	PMAXUB	X3, X0 \
	PCMPEQB	X3, X0 \
	POR	X5, X4 \
	POR	X0, X4 \
	PMOVMSKB	X4, AX \
	SHLQ	$off, AX \
	ORQ	AX, R9

// func markChunks(b []byte, out []uint64)
TEXT ·markChunks(SB), NOSPLIT, $0-48
	MOVQ	b_base+0(FP), SI
	MOVQ	out_base+24(FP), DI
	MOVQ	out_len+32(FP), CX
	MOVOU	strscanQuote<>(SB), X1
	MOVOU	strscanBackslash<>(SB), X2
	MOVOU	strscanCtl<>(SB), X3
	TESTQ	CX, CX
	JZ	done
chunk:
	XORQ	R9, R9
	MARK16(0)
	MARK16(16)
	MARK16(32)
	MARK16(48)
	MOVQ	R9, (DI)
	ADDQ	$64, SI
	ADDQ	$8, DI
	DECQ	CX
	JNZ	chunk
done:
	RET

DATA strscanQuote<>+0(SB)/8, $0x2222222222222222
DATA strscanQuote<>+8(SB)/8, $0x2222222222222222
GLOBL strscanQuote<>(SB), RODATA|NOPTR, $16
DATA strscanBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA strscanBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL strscanBackslash<>(SB), RODATA|NOPTR, $16
DATA strscanCtl<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA strscanCtl<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL strscanCtl<>(SB), RODATA|NOPTR, $16
