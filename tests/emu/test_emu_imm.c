/* SPDX-License-Identifier: MIT */
/*
 * The immediate of the emu data path's writes (emu/vp_internal.h): a data
 * write carries its chunk number mod 2^24 and up to 127 slots handed back
 * to its receiver, so that a ping-pong leg is one post; a credit alone
 * carries a flag and a count; a send's work request id says its kind,
 * peer and the writes its completion covers. Values are written out by
 * hand here.
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

/*
 * A send's wr_id: kind in the top byte, the data writes posted to the
 * peer as of it in the next 24 bits, the peer below. Its completion
 * stands for every earlier write: from the count now, the count as of
 * it, across the 2^24 wrap too.
 */
Test(vp_wr, a_write_names_its_kind_peer_and_count)
{
	uint64_t id = vp_wr_id_count(VP_WR_DATA, 3, 0x1000005);

	cr_assert_eq(id, 0x0100000500000003ull);
	cr_assert_eq(vp_wr_kind_of(id), VP_WR_DATA);
	cr_assert_eq(id & 0xffffffffu, 3);
	cr_assert_eq(vp_wr_kind_of(vp_wr_id(VP_WR_RECV, 7)), VP_WR_RECV);
}

Test(vp_wr, a_completion_covers_the_writes_before_it)
{
	/* posted 12 as of the write; 16 posted since */
	cr_assert_eq(vp_wr_upto(vp_wr_id_count(VP_WR_DATA, 0, 12), 16), 12);
	cr_assert_eq(vp_wr_upto(vp_wr_id_count(VP_WR_CREDIT, 1, 16), 16), 16);
	/* the count wrapped between the write (2^24 - 2) and now (2^24 + 3) */
	cr_assert_eq(vp_wr_upto(vp_wr_id_count(VP_WR_DATA, 0, (1ull << 24) - 2), (1ull << 24) + 3),
		     (1ull << 24) - 2);
	cr_assert_eq(vp_wr_upto(vp_wr_id_count(VP_WR_DATA, 0, (5ull << 24) + 1), (5ull << 24) + 9),
		     (5ull << 24) + 1);
}
