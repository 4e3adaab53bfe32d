/*
 * statsout.c - the counters of a run as CSV columns and JSON members,
 * from the library's field lists (see statsout.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "statsout.h"

#include <inttypes.h>

void out_replay_csv_header(FILE *f)
{
#define H(x) fputs("," #x, f);
    ZC_REPLAY_STATS_FIELDS(H)
#undef H
}

void out_replay_csv(FILE *f, const zc_replay_stats *r)
{
#define V(x) fprintf(f, ",%" PRIu64, r->x);
    ZC_REPLAY_STATS_FIELDS(V)
#undef V
}

void out_replay_json(FILE *f, const zc_replay_stats *r)
{
#define J(x) fprintf(f, ",\"" #x "\":%" PRIu64, r->x);
    ZC_REPLAY_STATS_FIELDS(J)
#undef J
}

void out_zcache_csv_header(FILE *f)
{
#define H(x) fputs(",zcache." #x, f);
    ZC_STATS_FIELDS(H)
#undef H
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        fprintf(f, ",zcache.compr_size_hist.%d", b);
}

void out_zcache_csv(FILE *f, const zc_stats *z)
{
    static const zc_stats none;

    if (!z)
        z = &none;
#define V(x) fprintf(f, ",%" PRIu64, z->x);
    ZC_STATS_FIELDS(V)
#undef V
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        fprintf(f, ",%" PRIu64, z->compr_size_hist[b]);
}

void out_zcache_json(FILE *f, const zc_stats *z)
{
    const char *sep = "";

    if (!z) {
        fputs(",\"zcache\":null", f);
        return;
    }
    fputs(",\"zcache\":{", f);
#define J(x)                                                                   \
    fprintf(f, "%s\"" #x "\":%" PRIu64, sep, z->x);                            \
    sep = ",";
    ZC_STATS_FIELDS(J)
#undef J
    fputs(",\"compr_size_hist\":[", f);
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        fprintf(f, "%s%" PRIu64, b ? "," : "", z->compr_size_hist[b]);
    fputs("]}", f);
}
