/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the checks that the hardware trace recorder's store must
 * pass before the next boot reads it: each field of a header and of a
 * copy, garbled in turn (its checksum made right, but for the checksum's
 * own case), is refused.  Included at the end of trace_recorder_store.c.
 */

#ifndef _KERNEL_EVENTS_TRACE_RECORDER_STORE_TEST_H
#define _KERNEL_EVENTS_TRACE_RECORDER_STORE_TEST_H

#include <kunit/test.h>

#define TEST_SLOTS	2
#define TEST_SIZE	(4 * PAGE_SIZE)	/* the header's page, 2 slots, 1 more */

static const u8 test_build_id[BUILD_ID_SIZE_MAX] = { 0xb1, 0x1d };

/*
 * A store of TEST_SIZE bytes, as a kernel of test_build_id lays it out,
 * whose slot 1 holds a frozen copy of 100 bytes of trace, sealed.
 */
static struct hwtrace_store *test_store(struct kunit *test)
{
	struct hwtrace_store *s = kunit_kzalloc(test, TEST_SIZE, GFP_KERNEL);
	struct perf_hwtrace_header *hdr;

	KUNIT_ASSERT_NOT_NULL(test, s);
	*s = (struct hwtrace_store){
		.magic = HWTRACE_STORE_MAGIC,
		.version = HWTRACE_STORE_VERSION,
		.hdr_size = sizeof(*s),
		.size = TEST_SIZE,
		.slots = PAGE_SIZE,
		.slot_size = PAGE_SIZE,
		.nr_slots = TEST_SLOTS,
		.build_id_size = sizeof(test_build_id),
	};
	memcpy(s->build_id, test_build_id, sizeof(test_build_id));
	s->crc = hwtrace_store_crc(s);

	hdr = hwtrace_store_slot_at(s, 1);
	*hdr = (struct perf_hwtrace_header){
		.magic = PERF_HWTRACE_MAGIC,
		.version = PERF_HWTRACE_VERSION,
		.hdr_size = sizeof(*hdr),
		.cpu = 1,
		.size = 100,
		.flags = PERF_HWTRACE_FROZEN | PERF_HWTRACE_CRASH,
		.build_id_size = sizeof(test_build_id),
	};
	memcpy(hdr->build_id, test_build_id, sizeof(test_build_id));
	memset(hdr + 1, 0x5a, hdr->size);
	s->seal[1].len = sizeof(*hdr) + hdr->size;
	s->seal[1].crc = hwtrace_crc(hdr, s->seal[1].len);
	return s;
}

static const char *test_check(struct hwtrace_store *s)
{
	return hwtrace_store_check(s, TEST_SIZE, test_build_id,
				   sizeof(test_build_id));
}

static const char *test_check_copy(struct hwtrace_store *s, u32 slot)
{
	return hwtrace_store_check_copy(s, slot, &s->seal[slot],
					hwtrace_store_slot_at(s, slot));
}

static void store_as_laid_out_passes(struct kunit *test)
{
	struct hwtrace_store *s = test_store(test);

	KUNIT_EXPECT_NULL(test, test_check(s));
	KUNIT_EXPECT_NULL(test, test_check_copy(s, 1));
}

/*
 * Garble field @i of the header: false past the last.  The checksum is
 * made right after.
 */
static bool garble_header(struct hwtrace_store *s, int i)
{
	switch (i) {
	case 0:
		s->magic = 0;
		break;
	case 1:
		s->magic++;
		break;
	case 2:
		s->version = 0;
		break;
	case 3:
		s->version++;
		break;
	case 4:
		s->hdr_size += 8;
		break;
	case 5:
		s->reserved = 1;
		break;
	case 6:
		s->size *= 2;			/* another region's */
		break;
	case 7:
		s->size -= PAGE_SIZE;
		break;
	case 8:
		s->build_id_size = 0;
		break;
	case 9:
		s->build_id[1]++;		/* another kernel's */
		break;
	case 10:
		s->nr_slots = 0;
		break;
	case 11:
		s->nr_slots = 4;		/* past the region */
		break;
	case 12:
		s->nr_slots = 0x10000000;	/* seals past slot 0 */
		break;
	case 13:
		s->slot_size = 0;
		break;
	case 14:
		s->slot_size += 8;
		break;
	case 15:
		s->slot_size *= 2;		/* past the region */
		break;
	case 16:
		s->slot_size = 0x80000000;	/* wraps */
		break;
	case 17:
		s->slots = 0;			/* over the header */
		break;
	case 18:
		s->slots += 8;
		break;
	case 19:
		s->slots = 3 * PAGE_SIZE;	/* past the region */
		break;
	case 20:
		s->slots = 0xfffffffffffff000ULL;	/* wraps */
		break;
	default:
		return false;
	}
	return true;
}

static void header_field_garbled_is_refused(struct kunit *test)
{
	int i;

	for (i = 0; ; i++) {
		struct hwtrace_store *s = test_store(test);

		if (!garble_header(s, i))
			break;
		s->crc = hwtrace_store_crc(s);
		KUNIT_EXPECT_NOT_NULL_MSG(test, test_check(s), "field %d", i);
	}
	KUNIT_EXPECT_EQ(test, i, 21);
}

static void header_checksum_wrong_is_refused(struct kunit *test)
{
	struct hwtrace_store *s = test_store(test);

	s->build_id[BUILD_ID_SIZE_MAX - 1] ^= 1;
	KUNIT_EXPECT_STREQ(test, test_check(s),
			   "its header's checksum is wrong");
}

static void another_build_is_refused(struct kunit *test)
{
	struct hwtrace_store *s = test_store(test);

	s->build_id[0] ^= 1;
	s->crc = hwtrace_store_crc(s);
	KUNIT_EXPECT_STREQ(test, test_check(s), "of another kernel build");
}

/*
 * Garble field @i of a copy's header: false past the last.  The seal's
 * checksum is made right after.
 */
static bool garble_copy(struct perf_hwtrace_header *hdr, int i)
{
	switch (i) {
	case 0:
		hdr->magic = 0;
		break;
	case 1:
		hdr->version++;
		break;
	case 2:
		hdr->hdr_size -= 8;
		break;
	case 3:
		hdr->cpu = 0;			/* another slot's */
		break;
	case 4:
		hdr->size--;
		break;
	case 5:
		hdr->size = ~0ULL;
		break;
	case 6:
		hdr->flags &= ~PERF_HWTRACE_FROZEN;
		break;
	case 7:
		hdr->build_id_size = 0;
		break;
	case 8:
		hdr->build_id[0]++;		/* another kernel's */
		break;
	default:
		return false;
	}
	return true;
}

static void copy_field_garbled_is_refused(struct kunit *test)
{
	int i;

	for (i = 0; ; i++) {
		struct hwtrace_store *s = test_store(test);
		struct perf_hwtrace_header *hdr = hwtrace_store_slot_at(s, 1);

		if (!garble_copy(hdr, i))
			break;
		s->seal[1].crc = hwtrace_crc(hdr, s->seal[1].len);
		KUNIT_EXPECT_NOT_NULL_MSG(test, test_check_copy(s, 1),
					  "field %d", i);
	}
	KUNIT_EXPECT_EQ(test, i, 9);
}

static void seal_garbled_is_refused(struct kunit *test)
{
	static const u32 lens[] = {
		1, sizeof(struct perf_hwtrace_header) - 1, PAGE_SIZE + 1,
		U32_MAX,
	};
	struct hwtrace_store *s = test_store(test);
	int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		s->seal[1].len = lens[i];
		KUNIT_EXPECT_NOT_NULL_MSG(test, test_check_copy(s, 1),
					  "len %u", lens[i]);
	}
	s = test_store(test);
	s->seal[1].crc ^= 1;
	KUNIT_EXPECT_STREQ(test, test_check_copy(s, 1),
			   "its checksum is wrong");
	s = test_store(test);
	*((u8 *)hwtrace_store_slot_at(s, 1) + s->seal[1].len - 1) ^= 1;
	KUNIT_EXPECT_STREQ(test, test_check_copy(s, 1),
			   "its checksum is wrong");
}

/* Slot 1's copy, sealed as slot 0's: of another CPU. */
static void copy_in_another_slot_is_refused(struct kunit *test)
{
	struct hwtrace_store *s = test_store(test);

	memcpy(hwtrace_store_slot_at(s, 0), hwtrace_store_slot_at(s, 1),
	       s->seal[1].len);
	s->seal[0] = s->seal[1];
	KUNIT_EXPECT_STREQ(test, test_check_copy(s, 0),
			   "its copy's header is garbled");
}

static struct kunit_case hwtrace_store_cases[] = {
	KUNIT_CASE(store_as_laid_out_passes),
	KUNIT_CASE(header_field_garbled_is_refused),
	KUNIT_CASE(header_checksum_wrong_is_refused),
	KUNIT_CASE(another_build_is_refused),
	KUNIT_CASE(copy_field_garbled_is_refused),
	KUNIT_CASE(seal_garbled_is_refused),
	KUNIT_CASE(copy_in_another_slot_is_refused),
	{}
};

static struct kunit_suite hwtrace_store_suite = {
	.name = "perf_hwtrace_store",
	.test_cases = hwtrace_store_cases,
};

kunit_test_suite(hwtrace_store_suite);

#endif /* _KERNEL_EVENTS_TRACE_RECORDER_STORE_TEST_H */
