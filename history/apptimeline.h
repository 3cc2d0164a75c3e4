/*  apptimeline.h - one application's timeline (libcore/timeline.h) from
    the figures of its log (detail.h), for its page (docs/history.md,
    "Timeline"). */
#ifndef HEARTH_HISTORY_APPTIMELINE_H
#define HEARTH_HISTORY_APPTIMELINE_H

#include <stdint.h>

#include "history/detail.h"

/* The timeline of finished detail d as one SVG element (new text, caller
   frees), the axis ending at end_ms (the application's end, or now);
   NULL when out of memory or when d kept no timeline
   (hist_detail_keep_timeline). */
char *hist_apptimeline (hist_detail_t *d, int64_t end_ms);

#endif
