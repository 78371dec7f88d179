//go:build amd64 && !purego

#include "textflag.h"

// MARK16 sets bits off..off+15 of R9 from the 16 bytes at off(SI): X1, X2, X3 hold '"', '\\' and
// 0x1f in every byte; it ORs the bytes into X6, whose high bits then say whether a byte was ≥ 0x80.
#define MARK16(off) \
	MOVOU	off(SI), X0 \
	POR	X0, X6 \
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

// func markChunksSSE2(b []byte, out []uint64) uint32
TEXT ·markChunksSSE2(SB), NOSPLIT, $0-52
	MOVQ	b_base+0(FP), SI
	MOVQ	out_base+24(FP), DI
	MOVQ	out_len+32(FP), CX
	MOVOU	strscanQuote<>(SB), X1
	MOVOU	strscanBackslash<>(SB), X2
	MOVOU	strscanCtl<>(SB), X3
	PXOR	X6, X6
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
	PMOVMSKB	X6, AX
	MOVL	AX, ret+48(FP)
	RET

// MARK32(off) sets bits off..off+31 of R9 from the 32 bytes at off(SI): Y1, Y2, Y3 hold '"',
// '\\' and 0x1f in every byte; it ORs the bytes into Y6, as MARK16 into X6.
#define MARK32(off) \
	VMOVDQU	off(SI), Y0 \
	VPOR	Y0, Y6, Y6 \
	VPCMPEQB	Y1, Y0, Y4 \
	VPCMPEQB	Y2, Y0, Y5 \
	VPMAXUB	Y3, Y0, Y0 \
	VPCMPEQB	Y3, Y0, Y0 \
	VPOR	Y5, Y4, Y4 \
	VPOR	Y0, Y4, Y4 \
	VPMOVMSKB	Y4, AX \
	SHLQ	$off, AX \
	ORQ	AX, R9

// func markChunksAVX2(b []byte, out []uint64) uint32
TEXT ·markChunksAVX2(SB), NOSPLIT, $0-52
	MOVQ	b_base+0(FP), SI
	MOVQ	out_base+24(FP), DI
	MOVQ	out_len+32(FP), CX
	MOVL	$0, ret+48(FP)
	TESTQ	CX, CX
	JZ	done2
	VMOVDQU	strscanQuote<>(SB), Y1
	VMOVDQU	strscanBackslash<>(SB), Y2
	VMOVDQU	strscanCtl<>(SB), Y3
	VPXOR	Y6, Y6, Y6
chunk2:
	XORQ	R9, R9
	MARK32(0)
	MARK32(32)
	MOVQ	R9, (DI)
	ADDQ	$64, SI
	ADDQ	$8, DI
	DECQ	CX
	JNZ	chunk2
	VPMOVMSKB	Y6, AX
	MOVL	AX, ret+48(FP)
	VZEROUPPER
done2:
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, a+8(FP)
	MOVL	BX, b+12(FP)
	MOVL	CX, c+16(FP)
	MOVL	DX, d+20(FP)
	RET

// func xgetbv0() uint32
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL	$0, CX
	XGETBV
	MOVL	AX, ret+0(FP)
	RET

DATA strscanQuote<>+0(SB)/8, $0x2222222222222222
DATA strscanQuote<>+8(SB)/8, $0x2222222222222222
DATA strscanQuote<>+16(SB)/8, $0x2222222222222222
DATA strscanQuote<>+24(SB)/8, $0x2222222222222222
GLOBL strscanQuote<>(SB), RODATA|NOPTR, $32
DATA strscanBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA strscanBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA strscanBackslash<>+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA strscanBackslash<>+24(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL strscanBackslash<>(SB), RODATA|NOPTR, $32
DATA strscanCtl<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA strscanCtl<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA strscanCtl<>+16(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA strscanCtl<>+24(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL strscanCtl<>(SB), RODATA|NOPTR, $32
