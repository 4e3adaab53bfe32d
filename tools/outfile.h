/*
 * outfile.h - the output files of zcache-replay and zcache-sweep, and
 * the one rule for removing them when a run fails.
 *
 * A tool that fails part way removes what it wrote, so that no partial
 * file passes for a whole one.  But the path it was given may name
 * something that is not its to remove: a device (/dev/null, /dev/full),
 * a FIFO, or a symlink to somewhere else (/proc/self/fd/1).  Removing
 * one of those as root destroys a system file.  The rule, held here and
 * nowhere else: an output is removed only if, when opened, it was a
 * regular file, and at removal the path itself (lstat: not a symlink's
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

/** One output file: its path, its stream while open (NULL when a library
 *  writer opened it), and whether it may be removed (a regular file, and
 *  which one).  Zero-initialised: nothing opened. */
typedef struct outfile {
    const char *path;
    FILE *f;
    bool removable; /* a regular file when opened: dev, ino say which */
    dev_t dev;
    ino_t ino;
} outfile;

/** Open path for writing (truncated or created, as fopen "w").  Returns
 *  the stream, or NULL with errno set. */
FILE *outfile_open(outfile *of, const char *path);

/** Remember path, opened by someone else (a library writer), as of's
 *  output: a regular file is removable. */
void outfile_claim(outfile *of, const char *path);

/** Close of's stream: 0, or -1 if anything written was lost (a write,
 *  flush or close error).  The file stays. */
int outfile_close(outfile *of);

/** After a failure: close of's stream (if open) and remove the file if it
 *  is still the regular file opened; a device, FIFO or symlink stays. */
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
