/*
 * sim/trace/resident.h - what resident.c offers the floors above besides
 * zc_resident_median() (zcache_sim.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_TRACE_RESIDENT_H
#define ZC_SIM_TRACE_RESIDENT_H

#include "zcache_sim.h"

/** Sort samples[n] by count and fold entries of the same count into one
 *  (their requests added): the number of entries left, each count once.
 *  zc_resident_median() of the result is that of the input. */
size_t zc__resident_merge(zc_resident_sample *samples, size_t n);

#endif
