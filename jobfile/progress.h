/*  progress.h - hearth-driver's progress display on a terminal, like
    Spark's console progress bar: one line per active stage,

        [Stage map: =========>               (460 + 2) / 2000] 1m05s, 3 failed
        [Stage sort: =>                          (12 + 2) / 500] 4s
        +1 more stage

    at the bottom of the terminal, below whatever else is written there.

    While the display runs, fd 2 is a pipe: whatever the process and the
    children it starts write to their standard error (the driver's
    warnings, a local executor's) is read by a thread of this module and
    written to the terminal a whole line at a time, each line erasing the
    display first and drawing it again below itself, so that no line is
    ever glued onto the display and the display never hides a line.

    Ownership: the display owns the terminal's fd (a copy of the old fd
    2), the pipe's read end and its thread; progress_destroy() gives fd 2
    its terminal back.  progress_format() is pure and returns text the
    caller frees.
*/
#ifndef HEARTH_JOBFILE_PROGRESS_H
#define HEARTH_JOBFILE_PROGRESS_H

#include <stddef.h>

#include "libhearth/hearth.h"

typedef struct progress progress_t;

/* Start the display if standard error is a terminal (and TERM is not
   "dumb"): fd 2 becomes the pipe described above.  Call it before
   starting the processes whose messages should pass above the display
   (they inherit fd 2).  NULL, with stderr as it was, when it is not a
   terminal (errno ENOTTY) or the display cannot start (errno). */
progress_t *progress_new (void);

/* Erase the display, give fd 2 back to the terminal, then copy what the
   pipe still holds or receives for a short while (the last messages of
   children that are ending) and end the thread.  Accepts NULL; nulls the
   pointer; keeps errno. */
void progress_destroy (progress_t **self_p);

/* The terminal's width in columns (80 when it does not say). */
int progress_columns (const progress_t *self);

/* Replace the display with text (lines separated by '\n', none at the
   end; borrowed): it is erased and drawn again only when it changed.
   Callers bound the rate (hearth-driver: every 200 ms). */
void progress_draw (progress_t *self, const char *text);

/* Erase the display: nothing of it stays on the terminal until the next
   progress_draw(). */
void progress_clear (progress_t *self);

/* The display's text for the first n of nactive active stages: a line
   per stage, "[Stage NAME: BAR (FINISHED + RUNNING) / TOTAL] ELAPSED"
   and ", N failed" when some attempts failed, then "+K more stages" when
   nactive > n; each line narrower than cols (the name is cut first, the
   bar never below a few columns).  Control characters of a name are
   shown as '?'.  A new string for the caller to free, or NULL on no
   memory. */
char *progress_format (const hearth_stage_progress_t *stages, size_t n,
                       size_t nactive, int cols);

#endif
