/* SPDX-License-Identifier: MIT */
/* What a damaged trace lost, in one line and in JSON: damage.h. */
#include <inttypes.h>
#include <string.h>

#include "analyze/util/text.h"
#include "damage.h"
#include "format/events.h"

/* Records of the CUDA call kinds the trace kept. */
static uint64_t calls_kept(const struct gr_model *m)
{
	static const unsigned kinds[] = {GR_K_LAUNCH, GR_K_COPY, GR_K_MEMSET, GR_K_ALLOC,
					 GR_K_FREE,   GR_K_SYNC, GR_K_GRAPH};
	uint64_t n = 0;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		n += gr_model_record_count(m, kinds[i]);
	return n;
}

void gr_damage_of(const struct gr_model *m, struct gr_damage *d)
{
	const struct gr_integrity *ig = gr_model_integrity(m);
	const struct gr_kernel *k;
	size_t nk, nlibs;

	memset(d, 0, sizeof(*d));
	d->damaged = !ig->complete;
	d->truncated = !ig->footer_present;
	d->session_end = gr_model_session(m, GR_SESS_STOP, NULL, NULL);
	d->file_bytes = ig->file_bytes;
	d->chunks_kept = ig->chunks_ok;
	d->chunks_bad = ig->chunks_bad;
	d->chunks_repeated = ig->chunks_repeated;
	d->chunks_out_of_order = ig->chunks_out_of_order;
	if (ig->bytes_unread && ig->bytes_unread <= ig->file_bytes) {
		d->partial_offset = ig->file_bytes - ig->bytes_unread;
		d->partial_bytes = ig->bytes_unread;
	}
	d->lower_bounds = d->damaged || gr_model_lost_events(m);
	if (!d->damaged)
		return;
	k = gr_model_kernels(m, &nk);
	for (size_t i = 0; i < nk; i++)
		d->unnamed_kernels += !k[i].named;
	gr_model_libraries(m, &nlibs);
	d->libraries_lost =
	    !nlibs && !gr_model_session(m, GR_SESS_CUDA_SEEN, NULL, NULL) && calls_kept(m) > 0;
}

void gr_damage_warn(FILE *f, const char *cmd, const char *path, const struct gr_damage *d)
{
	if (!d->damaged)
		return;
	fprintf(f, "gpurec %s: %s: damaged: ", cmd, GR_TEXT(path));
	if (d->truncated)
		fprintf(f,
			"truncated at byte %" PRIu64 " (the recording was cut short: no footer%s)",
			d->file_bytes, d->session_end ? "" : ", no session end");
	if (d->chunks_bad || (!d->truncated && !d->chunks_out_of_order))
		fprintf(f, "%s%" PRIu64 " bad chunk%s skipped", d->truncated ? ", " : "",
			d->chunks_bad, d->chunks_bad == 1 ? "" : "s");
	if (d->chunks_repeated)
		fprintf(f, " (%" PRIu64 " repeated)", d->chunks_repeated);
	if (d->chunks_out_of_order)
		fprintf(f, "%s%" PRIu64 " chunk%s out of order, read where %s",
			d->truncated || d->chunks_bad ? ", " : "", d->chunks_out_of_order,
			d->chunks_out_of_order == 1 ? "" : "s",
			d->chunks_out_of_order == 1 ? "it lies" : "they lie");
	if (!d->chunks_kept)
		fprintf(f, "; nothing recovered: no complete chunk");
	else
		fprintf(f, "; %" PRIu64 " complete chunk%s kept", d->chunks_kept,
			d->chunks_kept == 1 ? "" : "s");
	if (d->partial_bytes)
		fprintf(f, ", the partial chunk at offset %" PRIu64 " (%" PRIu64 " bytes) dropped",
			d->partial_offset, d->partial_bytes);
	if (d->libraries_lost)
		fprintf(f, "; the CUDA library names were lost with it");
	if (d->unnamed_kernels)
		fprintf(f, "; %" PRIu64 " kernel%s unnamed (names lost with it)",
			d->unnamed_kernels, d->unnamed_kernels == 1 ? "" : "s");
	fprintf(f, "; figures are lower bounds\n");
}

void gr_damage_json(struct gr_json *j, const struct gr_model *m)
{
	const struct gr_integrity *ig = gr_model_integrity(m);
	struct gr_damage d;

	gr_damage_of(m, &d);
	gr_json_key(j, "integrity");
	gr_json_object(j);
	gr_json_kv_bool(j, "complete", ig->complete);
	gr_json_kv_bool(j, "footer_present", ig->footer_present);
	gr_json_kv_u64(j, "file_bytes", ig->file_bytes);
	gr_json_kv_u64(j, "chunks_ok", ig->chunks_ok);
	gr_json_kv_u64(j, "chunks_bad", ig->chunks_bad);
	gr_json_kv_u64(j, "chunks_repeated", ig->chunks_repeated);
	gr_json_kv_u64(j, "chunks_out_of_order", ig->chunks_out_of_order);
	gr_json_kv_u64(j, "bytes_unread", ig->bytes_unread);
	gr_json_key(j, "first_problem");
	if (ig->first_problem.err) {
		gr_json_object_flat(j);
		gr_json_kv_u64(j, "offset", ig->first_problem.offset);
		gr_json_kv_str(j, "error", gr_strerror(ig->first_problem.err));
		gr_json_kv_str(j, "reason", ig->first_problem.reason);
		gr_json_object_end(j);
	} else {
		gr_json_null(j);
	}
	gr_json_kv_bool(j, "damaged", d.damaged);
	gr_json_kv_bool(j, "truncated", d.truncated);
	gr_json_kv_bool(j, "session_end", d.session_end);
	gr_json_key(j, "partial_chunk_offset");
	if (d.partial_bytes)
		gr_json_u64(j, d.partial_offset);
	else
		gr_json_null(j);
	gr_json_kv_u64(j, "unnamed_kernels", d.unnamed_kernels);
	gr_json_kv_bool(j, "libraries_lost", d.libraries_lost);
	gr_json_kv_bool(j, "lower_bounds", d.lower_bounds);
	gr_json_object_end(j);
}
