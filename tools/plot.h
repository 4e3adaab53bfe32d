/*
 * plot.h - the tools' plots, made one way: a gnuplot script PREFIX.gp
 * beside its data draws each plot twice, as PREFIX.png and PREFIX.svg
 * (900 x 500), and is run when gnuplot is installed.  Without gnuplot the
 * script stays, ready for it.  Shared by zcache-replay (split_log.c),
 * zcache-sweep and zcache-fidelity; each writes its own data and plot
 * commands.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_PLOT_H
#define ZC_TOOLS_PLOT_H

#include <stdio.h>

/** The terminals a script draws on: its plot commands follow each
 *  plot_terminal(f, prefix, i) for i in 0 .. PLOT_TERMINALS - 1. */
#define PLOT_TERMINALS 2

/** The script's first line: "# gnuplot PREFIX.gp  (made by PROG; data in
 *  DATA)". */
void plot_header(FILE *f, const char *prog, const char *prefix,
                 const char *data);

/** Terminal i's lines: "set terminal pngcairo size 900,500" and "set output
 *  'PREFIX.png'" (i = 0), the same for svg (i = 1). */
void plot_terminal(FILE *f, const char *prefix, int i);

/** s as text inside a script's quoted string, into out[n]: a path's last
 *  component, with quotes, backslashes and line breaks as '_' (so that no
 *  name can end the string and be read as a command). */
void plot_text(char *out, size_t n, const char *s);

/** What a plot's title calls the traces: the first one's file name, and
 *  "+ N more" when there are others (as plot_text()). */
void plot_traces_text(char *out, size_t n, const char *const *traces,
                      size_t ntraces);

/** The longest --plot prefix (the tools' paths are 1024 bytes). */
#define PLOT_PREFIX_MAX 960
#define PLOT_STR_(x) #x
#define PLOT_STR(x) PLOT_STR_(x)

/** What is wrong with PREFIX as a --plot prefix, or NULL: empty, too long,
 *  or with
 *  a ' or a line break, which would end the script's quoted file names
 *  (and its run by the shell) and be read as commands, or in a directory
 *  that does not exist (told before the work, not after it). */
const char *plot_prefix_error(const char *prefix);

/** Run gnuplot on PREFIX.gp when it is installed.  One note on stderr
 *  says where the plots are, that gnuplot failed on the script, or that
 *  gnuplot is not installed and the script is ready for it: the data are
 *  written either way, so none of these is the tool's failure. */
void plot_run(const char *prog, const char *prefix);

#endif
