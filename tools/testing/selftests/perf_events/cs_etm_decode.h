/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ETE trace, raw as a TRBE writes it, decoded with OpenCSD for the cs_etm
 * selftests (cs_etm_decode.c): the ETE's ID registers from sysfs, and what
 * a stretch of trace decodes to over this process's code.
 */
#ifndef CS_ETM_DECODE_H
#define CS_ETM_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <opencsd/c_api/opencsd_c_api.h>

#include "ptsim_lib.h"

#define CS_ETM_SYSFS		"/sys/bus/event_source/devices/cs_etm"
#define CS_ETM_TRBE_SYSFS	"/sys/bus/coresight/devices/trbe0"
/* Any valid ID: the TRBE's stream has one source */
#define CS_ETM_TRACE_ID		0x10

/* What a stretch of trace decodes to. */
struct cs_etm_flow {
	const struct ptsim_ranges *text;
	size_t		ranges;		/* instruction ranges */
	size_t		outside;	/* of them, not in this process's code */
	size_t		nacc;		/* code the decoder could not read */
	uint64_t	nacc_at;
	size_t		after;		/* ranges after the last exception */
	uint64_t	outside_at;
	uint64_t	exc_ret;	/* the last exception's return address */
	bool		exc;
};

int cs_etm_ete_config(ocsd_ete_cfg *cfg);
bool cs_etm_ends_at(const struct cs_etm_flow *f, uint64_t ip);
int cs_etm_decode(const uint8_t *trace, size_t len, ocsd_ete_cfg *cfg,
		  struct cs_etm_flow *f, char *why, size_t why_len);

#endif /* CS_ETM_DECODE_H */
