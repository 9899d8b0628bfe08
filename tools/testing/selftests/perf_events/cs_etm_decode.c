// SPDX-License-Identifier: GPL-2.0
/*
 * ETE trace decoded with OpenCSD for the cs_etm selftests; see
 * cs_etm_decode.h.
 */
#include <stdio.h>
#include <string.h>

#include "cs_etm_decode.h"

/* The ETE's ID registers that OpenCSD needs, as perf records them. */
int cs_etm_ete_config(ocsd_ete_cfg *cfg)
{
	static const char * const regs[] = {
		"trcidr/trcidr0", "trcidr/trcidr1", "trcidr/trcidr2",
		"trcidr/trcidr8", "mgmt/trcdevarch",
	};
	uint32_t val[5];
	char path[128];
	size_t i;

	for (i = 0; i < 5; i++) {
		FILE *f;
		int ok;

		snprintf(path, sizeof(path), CS_ETM_SYSFS "/cpu0/%s", regs[i]);
		f = fopen(path, "r");
		if (!f)
			return -1;
		ok = fscanf(f, "%x", &val[i]) == 1;
		fclose(f);
		if (!ok)
			return -1;
	}
	memset(cfg, 0, sizeof(*cfg));
	cfg->reg_idr0 = val[0];
	cfg->reg_idr1 = val[1];
	cfg->reg_idr2 = val[2];
	cfg->reg_idr8 = val[3];
	cfg->reg_devarch = val[4];
	cfg->reg_configr = 0;		/* aux_sample_config 0: no options */
	cfg->reg_traceidr = CS_ETM_TRACE_ID;
	cfg->arch_ver = ARCH_AA64;
	cfg->core_prof = profile_CortexA;
	return 0;
}

/* Whether the trace ends with an exception that returns to @ip. */
bool cs_etm_ends_at(const struct cs_etm_flow *f, uint64_t ip)
{
	return f->exc && f->exc_ret == ip && !f->after;
}

static uint32_t read_code(const void *context, const ocsd_vaddr_t address,
			  const ocsd_mem_space_acc_t space, const uint32_t len,
			  uint8_t *buf)
{
	const struct ptsim_ranges *text = context;

	if (!ptsim_in_ranges(text, address) ||
	    !ptsim_in_ranges(text, address + len - 1))
		return 0;
	memcpy(buf, (const void *)(uintptr_t)address, len);
	return len;
}

static ocsd_datapath_resp_t element(const void *context,
				    const ocsd_trc_index_t index,
				    const uint8_t id,
				    const ocsd_generic_trace_elem *e)
{
	struct cs_etm_flow *f = (struct cs_etm_flow *)context;

	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		f->ranges++;
		f->after++;
		if (!ptsim_in_ranges(f->text, e->st_addr) ||
		    !ptsim_in_ranges(f->text, e->en_addr - 1)) {
			f->outside++;
			f->outside_at = e->st_addr;
		}
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
		f->nacc++;
		f->nacc_at = e->st_addr;
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
		f->exc = e->excep_ret_addr;
		f->exc_ret = e->en_addr;
		f->after = 0;
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

/*
 * Decode @len bytes of ETE trace, unformatted as the TRBE writes it, into
 * @f.  Returns 0, or -1 with OpenCSD's complaint in @why.
 */
int cs_etm_decode(const uint8_t *trace, size_t len, ocsd_ete_cfg *cfg,
		  struct cs_etm_flow *f, char *why, size_t why_len)
{
	dcd_tree_handle_t tree;
	ocsd_datapath_resp_t resp = OCSD_RESP_CONT;
	uint32_t done = 0, n;
	uint8_t id;
	int ret = -1;
	size_t i;

	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!tree) {
		snprintf(why, why_len, "ocsd_create_dcd_tree failed");
		return -1;
	}
	if (ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETE,
				   OCSD_CREATE_FLG_FULL_DECODER, cfg, &id) ||
	    ocsd_dt_set_gen_elem_outfn(tree, element, f)) {
		snprintf(why, why_len, "cannot set up an ETE decoder");
		goto out;
	}
	for (i = 0; i < f->text->nr; i++) {
		const struct ptsim_range *r = &f->text->r[i];

		if (ocsd_dt_add_callback_mem_acc(tree, r->start, r->end - 1,
						 OCSD_MEM_SPACE_ANY, read_code,
						 f->text)) {
			snprintf(why, why_len, "cannot map %#llx-%#llx",
				 (unsigned long long)r->start,
				 (unsigned long long)r->end);
			goto out;
		}
	}

	while (done < len && !OCSD_DATA_RESP_IS_FATAL(resp)) {
		n = 0;
		if (OCSD_DATA_RESP_IS_WAIT(resp))
			resp = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0,
						    NULL, NULL);
		else
			resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, done,
						    len - done, trace + done,
						    &n);
		done += n;
	}
	if (!OCSD_DATA_RESP_IS_FATAL(resp))
		resp = ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL,
					    NULL);
	if (OCSD_DATA_RESP_IS_FATAL(resp)) {
		ocsd_trc_index_t at = 0;
		uint8_t chan;
		char msg[96] = "";

		ocsd_get_last_err(&at, &chan, msg, sizeof(msg));
		snprintf(why, why_len, "OpenCSD failed at byte %u of %zu: %s",
			 done, len, msg);
		goto out;
	}
	ret = 0;
out:
	ocsd_destroy_dcd_tree(tree);
	return ret;
}
