#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference fp32 -> binary16 and fp32 -> bfloat16 conversions for
tests/emu/test_emu_dtype.c, computed apart from emu/dtype.c:

  binary16  struct.pack('<e'), CPython's PyFloat_Pack2: a double rounded
            to nearest, ties to even, subnormals included, at once (the
            fp32 input widens to a double exactly); OverflowError is what
            CPython raises for a value that rounds past 65504, which round
            to nearest makes +-Inf (IEEE 754-2008 s7.4).
  bfloat16  the fp32 bit pattern cut to its top 16 bits, rounded to
            nearest even by hand in integers.
  check     every finite result of both, in exact rationals: neither of
            its two neighbours is nearer the input, and at a tie it is
            the even one.
  NaN       gdrlab's rule, as x86 F16C (VCVTPS2PH) and Arm FCVT do it: the
            sign, the top payload bits that fit, the quiet bit set
            (IEEE 754-2008 s6.2.1, s6.2.3); CPython's struct drops the
            payload, so NaN lines are written by that rule here.

Each line: fp32 bits, binary16 bits, bfloat16 bits, the binary16 result
widened back to fp32 bits (exact; a NaN quiet with its payload), a tag.

Run from the repository root, with any Python 3.6 or later:
  python3 tests/data/dtype/gen-half-ref.py > tests/data/dtype/half-ref.txt
Written with CPython 3.11.7. The output is fixed by the seed below.
"""
import math
import random
import struct
from fractions import Fraction


def f32(bits):
    return struct.unpack('<f', struct.pack('<I', bits))[0]


def bits32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def is_nan32(u):
    return (u & 0x7f800000) == 0x7f800000 and (u & 0x7fffff) != 0


def to_half(u):
    sign = (u >> 16) & 0x8000
    if is_nan32(u):
        return sign | 0x7c00 | 0x200 | ((u >> 13) & 0x3ff)
    try:
        return struct.unpack('<H', struct.pack('<e', f32(u)))[0]
    except OverflowError:
        return sign | 0x7c00


def half_to_f32(h):
    sign = (h & 0x8000) << 16
    if (h & 0x7c00) == 0x7c00 and (h & 0x3ff):
        return sign | 0x7f800000 | 0x400000 | ((h & 0x3ff) << 13)
    return bits32(struct.unpack('<e', struct.pack('<H', h))[0])


def value32(u):
    """An fp32 pattern as an exact Fraction (finite only)."""
    e, m = (u >> 23) & 0xff, u & 0x7fffff
    v = Fraction(m, 1 << 23) * Fraction(2) ** -126 if e == 0 else \
        (1 + Fraction(m, 1 << 23)) * Fraction(2) ** (e - 127)
    return -v if u >> 31 else v


def to_bf16(u):
    if is_nan32(u):
        return (u >> 16) | 0x40
    top, rest = u >> 16, u & 0xffff
    if rest > 0x8000 or (rest == 0x8000 and top & 1):
        top += 1  # a carry into the exponent is the next binade, or Inf
    return top


def check_nearest(u, got, value, inf, inf_value):
    """@got, a 16-bit pattern (@value of its magnitude bits; @inf the
    pattern of Inf, standing for @inf_value as s7.4 rounds), is the one
    nearest fp32 @u, the even one at a tie: neither neighbour of @got is
    nearer. Signs are checked as the sign bits."""
    if (u & 0x7f800000) == 0x7f800000:
        return
    assert (got >> 15) == (u >> 31), (hex(u), hex(got))
    mag = got & 0x7fff
    assert mag <= inf, (hex(u), hex(got))
    x = abs(value32(u))

    def val(p):
        return inf_value if p == inf else value(p)

    d = abs(x - val(mag))
    for n in (mag - 1, mag + 1):
        if 0 <= n <= inf:
            dn = abs(x - val(n))
            assert dn > d or (dn == d and mag % 2 == 0), (hex(u), hex(got))


def half_value(p):
    e, m = p >> 10, p & 0x3ff
    return Fraction(m, 1 << 24) if e == 0 else \
        (1024 + m) * Fraction(2) ** (e - 25)


def bf16_value(p):
    return value32(p << 16)


def f32_of(x):
    """The fp32 nearest a Python float (ties even), as bits."""
    return bits32(x)



def lines():
    out = []

    def add(u, tag):
        u &= 0xffffffff
        h, b = to_half(u), to_bf16(u)
        check_nearest(u, h, half_value, 0x7c00, Fraction(2) ** 16)
        check_nearest(u, b, bf16_value, 0x7f80, Fraction(2) ** 128)
        out.append('%08x %04x %04x %08x %s' % (u, h, b,
                                               half_to_f32(h), tag))

    def both(u, tag):
        add(u, tag)
        add(u | 0x80000000, tag)

    # specials: zeros, Inf, NaNs (quiet, signalling, payload only in the
    # low bits that +0x7fff rounding would carry into the exponent)
    for u in (0x00000000, 0x7f800000):
        both(u, 'special')
    for u in (0x7fc00000, 0x7f800001, 0x7fa00000, 0x7fbfffff, 0x7fffffff,
              0x7fc02000, 0x7f802000, 0x7f80ffff, 0x7fc0e000):
        both(u, 'nan')

    # binary16's range ends: 65504 its largest, 65520 the midpoint to the
    # next power 2^16 that rounds to Inf, fp32's own extremes
    for x in (65504.0, 65505.0, 65519.0, 65536.0, 1e10, 3.4028234663852886e38):
        both(f32_of(x), 'overflow')
    both(f32_of(65520.0) - 1, 'overflow-below')
    both(f32_of(65520.0), 'overflow-tie')
    both(f32_of(65520.0) + 1, 'overflow-above')

    # below the smallest subnormal 2^-24: 2^-25 is the tie with 0 (even),
    # a hair above it rounds up, 1.5 x 2^-24 ties to 2 x 2^-24
    for e in (-149, -140, -126, -60, -30, -26):
        both(f32_of(2.0 ** e), 'tiny')
    both(0x007fffff, 'tiny')
    t = f32_of(2.0 ** -25)
    both(t - 1, 'tiny-below-tie')
    both(t, 'tiny-tie')
    both(t + 1, 'tiny-above-tie')
    both(f32_of(1.5 * 2.0 ** -24), 'subnormal-tie')
    both(f32_of(2.5 * 2.0 ** -24), 'subnormal-tie')

    # every binary16 subnormal k x 2^-24 sampled, with the midpoints on
    # either side and an fp32 ulp around each; 2^-14, the smallest normal
    rng = random.Random(12)
    ks = sorted(set([0, 1, 2, 3, 4, 511, 512, 513, 1021, 1022, 1023] +
                    rng.sample(range(5, 1021), 60)))
    for k in ks:
        both(f32_of(k * 2.0 ** -24), 'subnormal')
        m = f32_of((k + 0.5) * 2.0 ** -24)
        add(m - 1, 'subnormal-below-tie')
        add(m, 'subnormal-tie')
        add(m + 1, 'subnormal-above-tie')
    for x in (2.0 ** -14, 2.0 ** -14 - 2.0 ** -25, 2.0 ** -14 + 2.0 ** -25):
        both(f32_of(x), 'normal-min')
    both(f32_of(2.0 ** -14 - 2.0 ** -25) - 1, 'normal-min')

    # normal binary16 values and the midpoints after them: odd mantissas
    # round up at the tie, even ones down; an fp32 ulp either side
    for _ in range(200):
        h = rng.randrange(0x0400, 0x7bff)
        lo = struct.unpack('<e', struct.pack('<H', h))[0]
        hi = struct.unpack('<e', struct.pack('<H', h + 1))[0]
        m = f32_of((lo + hi) / 2)
        assert f32(m) == (lo + hi) / 2
        add(f32_of(lo), 'normal')
        add(m - 1, 'tie-below')
        add(m, 'tie-even' if h % 2 == 0 else 'tie-odd')
        add(m + 1, 'tie-above')
    for x in (1.0, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 2048.0, 2049.0,
              2051.0, 0.1, 1.0 / 3, math.pi, 1e-5, 6.1e-5):
        both(f32_of(x), 'value')

    # bfloat16's ties and its top end: the low 16 bits 0x8000 after an
    # even and an odd top half, the largest finite value, a carry into Inf
    for top in (0x3f80, 0x3f81, 0x0000, 0x0001, 0x007f, 0x4380, 0x7f7e,
                0x7f7f):
        for rest in (0x7fff, 0x8000, 0x8001):
            both(top << 16 | rest, 'bf16-tie')
    both(0x7f7fffff, 'bf16-overflow')

    # fp32 values over every exponent, and more across binary16's range
    for _ in range(500):
        add(rng.getrandbits(32), 'random')
    for _ in range(400):
        e = rng.randrange(-28, 18)
        x = rng.uniform(1.0, 2.0) * 2.0 ** e * rng.choice((1, -1))
        add(f32_of(x), 'random-half-range')
    return out


if __name__ == '__main__':
    print('# gdrlab: fp32 -> binary16 / bfloat16 reference; generated by')
    print('# tests/data/dtype/gen-half-ref.py (see it for how), do not edit.')
    print('# fp32 binary16 bfloat16 binary16-as-fp32 tag')
    for line in lines():
        print(line)
