/* SPDX-License-Identifier: MIT */
/*
 * The immediate of the emu data path's writes (emu/vp_internal.h): a data
 * write carries its chunk number mod 2^24 and up to 127 slots handed back
 * to its receiver, so that a ping-pong leg is one post; a credit alone
 * carries a flag and a count. Values are written out by hand here.
 */
#include <criterion/criterion.h>

#include "vp_internal.h"

Test(vp_imm, data_carries_its_chunk_and_the_slots_handed_back)
{
	uint32_t imm = vp_imm_data(5, 3);

	cr_assert_eq(imm, 0x03000005u);
	cr_assert(!vp_imm_is_credit(imm));
	cr_assert_eq(vp_imm_seq(imm), 5);
	cr_assert_eq(vp_imm_slots(imm), 3);
}

Test(vp_imm, chunk_numbers_wrap_at_2_to_the_24)
{
	cr_assert_eq(vp_imm_seq(vp_imm_data((1ull << 24) + 7, 0)), 7);
	cr_assert_eq(vp_imm_seq(vp_imm_data((1ull << 24) - 1, VP_IMM_CARRY_MAX)), 0xffffffu);
}

Test(vp_imm, the_most_a_write_carries_is_not_a_credit)
{
	uint32_t imm = vp_imm_data(0xffffffu, VP_IMM_CARRY_MAX);

	cr_assert_eq(imm, 0x7fffffffu);
	cr_assert(!vp_imm_is_credit(imm));
	cr_assert_eq(vp_imm_slots(imm), 127);
}

Test(vp_imm, a_credit_alone_hands_back_its_count)
{
	uint32_t imm = vp_imm_credit(64);

	cr_assert_eq(imm, 0x80000040u);
	cr_assert(vp_imm_is_credit(imm));
	cr_assert_eq(vp_imm_slots(imm), 64);
}
