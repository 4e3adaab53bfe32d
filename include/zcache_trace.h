/*
 * zcache_trace.h - the simulation layer's former name: includes
 * zcache_sim.h, so that programs written against it keep compiling.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZCACHE_TRACE_H
#define ZCACHE_TRACE_H
#include "zcache_sim.h"
#endif
