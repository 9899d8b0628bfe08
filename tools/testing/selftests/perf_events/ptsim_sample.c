// SPDX-License-Identifier: GPL-2.0
/*
 * Upstream's AUX sampling with ptsim as the group leader: {ptsim, cpu-clock}
 * where cpu-clock samples PERF_SAMPLE_AUX.  Every sample must hold trace
 * that decodes and ends at the last record ptsim wrote before the sample,
 * whose sequence number is ptsim's count, read into the same sample.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define SAMPLE_SIZE	4096
#define DATA_PAGES	128

FIXTURE(ptsim_sample)
{
	int			leader, sampler;
	struct ptsim_map	aux;
	struct ptsim_map	samples;
};

FIXTURE_SETUP(ptsim_sample)
{
	struct perf_event_attr attr;
	int type = ptsim_type();

	memset(self, 0, sizeof(*self));
	self->leader = -1;
	self->sampler = -1;
	if (type < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");

	ptsim_attr(&attr, type, 0, 0);
	self->leader = ptsim_open(&attr, 0, -1, -1);
	ASSERT_GE(self->leader, 0) TH_LOG("ptsim: %s", strerror(errno));
	/* Overwrite mode: AUX sampling needs a snapshot buffer. */
	ASSERT_EQ(ptsim_map(self->leader, &self->aux, 1, 8, true), 0);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 2000000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_AUX;
	attr.read_format = PERF_FORMAT_GROUP;
	attr.aux_sample_size = SAMPLE_SIZE;
	self->sampler = ptsim_open(&attr, 0, -1, self->leader);
	ASSERT_GE(self->sampler, 0) TH_LOG("cpu-clock: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(self->sampler, &self->samples, DATA_PAGES, 0,
			    false), 0);
}

FIXTURE_TEARDOWN(ptsim_sample)
{
	ptsim_unmap(&self->samples);
	ptsim_unmap(&self->aux);
	if (self->sampler >= 0)
		close(self->sampler);
	if (self->leader >= 0)
		close(self->leader);
}

TEST_F(ptsim_sample, samples_end_at_latest_record)
{
	uint64_t head, tail, nr_samples = 0, nr_empty = 0;
	struct perf_event_header hdr;
	const struct ptsim_map *m = &self->samples;
	const uint8_t *ring = ptsim_data(m);
	size_t len = m->data_size;

	ASSERT_EQ(ioctl(self->leader, PERF_EVENT_IOC_ENABLE,
			PERF_IOC_FLAG_GROUP), 0);
	ptsim_spin(200);
	ASSERT_EQ(ioctl(self->leader, PERF_EVENT_IOC_DISABLE,
			PERF_IOC_FLAG_GROUP), 0);

	head = __atomic_load_n(&self->samples.pg->data_head, __ATOMIC_ACQUIRE);
	ASSERT_LE(head, self->samples.data_size) TH_LOG("samples overran");
	for (tail = 0; tail < head; tail += hdr.size) {
		/* ip, read: { nr, value[nr] }, aux: { size, data[size] } */
		uint64_t ip_nr_count[3], size;
		struct ptsim_stream s = {};
		struct ptsim_trace t;
		uint8_t *data;

		ptsim_ring_read(ring, len, tail, &hdr, sizeof(hdr));
		ASSERT_NE(hdr.size, 0);
		if (hdr.type != PERF_RECORD_SAMPLE)
			continue;
		ptsim_ring_read(ring, len, tail + sizeof(hdr), ip_nr_count,
				sizeof(ip_nr_count));
		ASSERT_EQ(ip_nr_count[1], 2);	/* ptsim and cpu-clock */
		ptsim_ring_read(ring, len, tail + sizeof(hdr) + 32, &size,
				sizeof(size));
		ASSERT_LE(sizeof(hdr) + 40 + size, hdr.size);
		ASSERT_LE(size, SAMPLE_SIZE);
		nr_samples++;
		if (!size) {
			nr_empty++;
			continue;
		}

		data = malloc(size);
		ASSERT_NE(data, NULL);
		ptsim_ring_read(ring, len, tail + sizeof(hdr) + 40, data, size);
		ptsim_stream_add(&s, data, size, 0);
		free(data);

		EXPECT_EQ(ptsim_decode(&s, &t), 0)
			TH_LOG("sample %llu: %s", (unsigned long long)nr_samples,
			       t.error);
		ASSERT_GT(t.nr, 0);
		EXPECT_EQ(ptsim_unreported_gap(&s, &t), -1);
		/* The sample ends at the record ptsim's count names. */
		EXPECT_EQ(t.rec[t.nr - 1].seq, ip_nr_count[2])
			TH_LOG("sample %llu ends at record %llu, count %llu",
			       (unsigned long long)nr_samples,
			       (unsigned long long)t.rec[t.nr - 1].seq,
			       (unsigned long long)ip_nr_count[2]);
		ptsim_trace_free(&t);
		ptsim_stream_free(&s);
	}
	EXPECT_GE(nr_samples, 10);
	/* Only samples taken before ptsim's first record may be empty. */
	EXPECT_LE(nr_empty, 1);
}

TEST_HARNESS_MAIN
