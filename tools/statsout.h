/*
 * statsout.h - the counters of a run as CSV columns and JSON members,
 * written from the library's own field lists (ZC_REPLAY_STATS_FIELDS,
 * ZC_STATS_FIELDS), so that every output of every tool carries every
 * counter under one name, and a counter added to the library appears in
 * all of them at once.
 *
 * Names: the replay counters as they are (accesses, zc_hits, ...); the
 * zcache's as zcache.NAME in CSV columns, and NAME inside a "zcache"
 * object in JSON; the size histogram as zcache.compr_size_hist.B columns
 * and a "compr_size_hist" array.  A run without a zcache writes zeros in
 * CSV and "zcache": null in JSON.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_STATSOUT_H
#define ZC_TOOLS_STATSOUT_H

#include <stdio.h>

#include "zcache.h"
#include "zcache_sim.h"

/** ",accesses,..." : the replay counters' column names. */
void out_replay_csv_header(FILE *f);
/** ",N,..." : their values. */
void out_replay_csv(FILE *f, const zc_replay_stats *r);
/** ",\"accesses\":N,..." : members of an object being written. */
void out_replay_json(FILE *f, const zc_replay_stats *r);

/** ",zcache.puts,...,zcache.compr_size_hist.B": the zcache's columns. */
void out_zcache_csv_header(FILE *f);
/** Their values (zeros for NULL: no zcache). */
void out_zcache_csv(FILE *f, const zc_stats *z);
/** ",\"zcache\":{...}" or ",\"zcache\":null": a member. */
void out_zcache_json(FILE *f, const zc_stats *z);

#endif
