/*
 * outfile.h - the output files of zcache-replay and zcache-sweep, and
 * the one rule for removing them when a run fails.
 *
 * Every output is written under a temporary name beside it and renamed
 * into place when it is closed (zc_output_open(), zcache_sim.h), so that
 * no reader ever sees a part of it, even after a kill: until then the
 * file of that name stays as it was, and a failure (or a signal: cli.h)
 * removes the temporary file.  A run that fails after an output was put
 * in place removes that output, but the path it was given may name
 * something that is not its to remove: a device (/dev/null, /dev/full), a
 * FIFO, or a symlink to somewhere else (/proc/self/fd/1).  Removing one
 * of those as root destroys a system file.  The rule, held here and
 * nowhere else: an output is removed only if, when put in place, it was
 * a regular file, and at removal the path itself (lstat: not a symlink's
 * target) is still that same regular file (device and inode).
 *
 * Standard output is checked the same way at the end of a run: its
 * buffer flushed, its error flag and close checked, so that a full disk
 * or a closed pipe is an error and not a silent truncation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_OUTFILE_H
#define ZC_TOOLS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "zcache_sim.h"

/** One output file: its path, its stream while open, and, once in
 *  place, whether it may be removed (a regular file, and which one).
 *  Zero-initialised: nothing opened. */
typedef struct outfile {
    const char *path;
    FILE *f;
    zc_output *o;   /* while open */
    bool removable; /* in place as a regular file: dev, ino say which */
    dev_t dev;
    ino_t ino;
} outfile;

/** Open path for writing (under a temporary name: zc_output_open()).
 *  Returns the stream, or NULL with errno set. */
FILE *outfile_open(outfile *of, const char *path);

/** Finish of's stream and put it in place: 0, or -1 if anything written
 *  was lost (a write, flush, close or rename error; then the temporary
 *  file is removed and the old file stays). */
int outfile_close(outfile *of);

/** Remember path, which a library writer has just put in place (its
 *  close succeeded), as of's output: a later failure removes it if it is
 *  still that regular file. */
void outfile_claim(outfile *of, const char *path);

/** After a failure: abandon of's stream (if open: its temporary file
 *  goes) and remove the file put in place if it is still that regular
 *  file; a device, FIFO or symlink stays. */
void outfile_discard(outfile *of);

/** End of a run: flush and close standard output.  Returns 0, or 1 after
 *  "PROG: cannot write standard output: WHY" on stderr. */
int outfile_stdout_close(const char *prog);

/** What is wrong with path as an output to make later, or NULL: a
 *  directory part that is not a directory (told before the work, not
 *  after it). */
const char *outfile_dir_error(const char *path);

/** If out names one of the n inputs (the same file: device and inode),
 *  that input's name; else NULL (also when out does not exist yet).  A
 *  tool refuses such an output before any work: writing it would destroy
 *  what the run reads. */
const char *outfile_input_clash(const char *out, const char *const *inputs,
                                size_t n);

/** Refuse (exit 2, naming opt) an output that is one of the run's inputs:
 *  its traces, or the file its content spec reads (zc_content_file()).
 *  out may be a prefix: then each of the n suffixes is checked (out +
 *  suffix). */
void outfile_refuse_clash(const char *opt, const char *out,
                          const char *const *suffixes, size_t n,
                          const char *const *traces, size_t ntraces,
                          const char *content_spec);

/** Refuse (exit 2, naming opt) an output out that is one of the plot
 *  files prefix + suffixes[k] of the same run (by name, or the same file
 *  when both exist): one would write over the other. */
void outfile_refuse_same(const char *opt, const char *out, const char *prefix,
                         const char *const *suffixes, size_t n);

/** s as a JSON string on f: quoted, '"' and the backslash escaped,
 *  control characters as u00XX escapes, a byte that is not part of valid
 *  UTF-8 (a file name may hold any) as U+FFFD, so that the output is
 *  always valid JSON. */
void out_json_string(FILE *f, const char *s);

/** s as a CSV field on f: quoted, '"' doubled. */
void out_csv_string(FILE *f, const char *s);

#endif
