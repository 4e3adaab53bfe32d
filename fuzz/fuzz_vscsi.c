/*
 * fuzz/fuzz_vscsi.c - libFuzzer target: the vscsi reader
 * (CloudPhysics vscsi CSV).
 *
 * The input is one file, read with the format forced: whole, cut in two
 * at a line start or at any byte (the choice follows the input), and as
 * the two parts one after the other; harness.h lists the checks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool clean;
    size_t at = fuzz_cut_text(data, size, &clean);

    fuzz_reader("vscsi", data, size, at, clean, NULL);
    return 0;
}
