/*  apptext.h - one application's summary as text, rendered from the
    JSON document of appview.h (borrowed). */
#ifndef HEARTH_HISTORY_APPTEXT_H
#define HEARTH_HISTORY_APPTEXT_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* Print doc's sections: the application, its settings that matter,
   tasks, accounting, jobs, stages, the slowest attempts, failures,
   executors.  Strings are printed as doc has them: the caller escapes
   their control characters first (libcore/ctlchars.h, appview.c). */
void hist_apptext (FILE *out, const cJSON *doc);

/* A run time in µs as 850us, 12.3ms, 4.5s, 2m05s... into buf. */
void hist_format_us (int64_t us, char *buf, size_t size);

#endif
