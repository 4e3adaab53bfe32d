/*
 * sim/pack/pack.h - what the content-pack writer (pack.c) offers the
 * floors above it beyond the public zc_pack_writer calls.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_PACK_PACK_H
#define ZC_SIM_PACK_PACK_H

#include "zcache_sim.h"

/* Close and free w without finishing the pack: no block still open is
 * written and no index, so the file is no pack; it stays where it is,
 * for its owner to remove or not (zc_pack_writer_close() of a failed
 * writer removes whatever its path names then).  NULL is fine.  For a
 * caller that failed part way (sim/capture/). */
void zc__pack_writer_abandon(zc_pack_writer *w);

#endif /* ZC_SIM_PACK_PACK_H */
