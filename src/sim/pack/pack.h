/*
 * sim/pack/pack.h - what the content-pack writer (pack.c) offers the
 * floors above it beyond the public zc_pack_writer calls.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_PACK_PACK_H
#define ZC_SIM_PACK_PACK_H

#include "zcache_sim.h"


#endif /* ZC_SIM_PACK_PACK_H */
