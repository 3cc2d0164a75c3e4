/*  tasklimits.c - the limits of one task, checked on its group's
    templates; see tasklimits.h.

    A template of len bytes holding hits "{i}" renders, for an index of d
    digits, to len + hits * (d - 3) bytes: sizes grow with the number of
    digits only, so the first index over a limit is the first one of some
    number of digits (0, 10, 100...), found in at most 20 steps.
*/
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "libcore/proto.h"
#include "libhearth/tasklimits.h"

/* Digits of the largest index (2^64 - 1). */
enum { s_max_digits = 20 };

/* A template's size and its "{i}" (counted as render_template finds
   them: left to right, not overlapping). */
typedef struct {
    uint64_t len;  /* bytes, without a NUL */
    uint64_t hits; /* "{i}" in it */
} s_tmpl_t;

static s_tmpl_t
s_tmpl (const char *text, size_t len)
{
    s_tmpl_t t = {len, 0};
    const char *end = text + len;
    for (const char *p = text; p + 3 <= end; p++)
        if (p[0] == '{' && p[1] == 'i' && p[2] == '}') {
            t.hits++;
            p += 2;
        }
    return t;
}

/* The first index below count whose rendering of t is over max bytes,
   or count when none is; *size its size then. */
static uint64_t
s_first_over (s_tmpl_t t, uint64_t max, uint64_t count, uint64_t *size)
{
    uint64_t first = 0;
    for (uint64_t d = 1; d <= s_max_digits && first < count; d++) {
        if (t.len + t.hits * d > max + 3 * t.hits) {
            *size = t.len + t.hits * d - 3 * t.hits;
            return first;
        }
        if (first > UINT64_MAX / 10)
            break;
        first = first ? first * 10 : 10;
    }
    return count;
}

/* The first task over a limit so far, kept in *over. */
typedef struct {
    tasklimit_t *over; /* the caller's */
    uint64_t count;    /* tasks in the group */
    bool found;        /* *over holds one */
} s_worst_t;

/* A limit broken at index: kept when it is the first task so far. */
static void __attribute__ ((format (printf, 3, 4)))
s_broken (s_worst_t *w, uint64_t index, const char *fmt, ...)
{
    if (index >= w->count || (w->found && index >= w->over->index))
        return;
    w->found = true;
    w->over->index = index;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (w->over->text, sizeof w->over->text, fmt, ap);
    va_end (ap);
}

/* One "NAME=VALUE" template, env[k]; its bytes are added to *total. */
static void
s_env_entry (s_worst_t *w, const char *entry, size_t k, s_tmpl_t *total)
{
    const char *eq = strchr (entry, '=');
    uint64_t size = 0;
    if (!eq || eq == entry) {
        s_broken (w, 0, "env[%zu] is not NAME=VALUE (%s)", k,
                  eq ? "an empty name" : "no '='");
        return;
    }
    s_tmpl_t name = s_tmpl (entry, (size_t) (eq - entry));
    s_tmpl_t value = s_tmpl (eq + 1, strlen (eq + 1));
    uint64_t i = s_first_over (name, HEARTH_TASK_ENV_NAME_MAX, w->count, &size);
    s_broken (w, i,
              "env[%zu]'s name is %llu bytes, over the %d an "
              "environment variable's name may be",
              k, (unsigned long long) size, HEARTH_TASK_ENV_NAME_MAX);
    i = s_first_over (value, HEARTH_TASK_ARG_MAX, w->count, &size);
    s_broken (w, i,
              "env[%zu]'s value is %llu bytes, over the %d an "
              "environment variable's value may be",
              k, (unsigned long long) size, HEARTH_TASK_ARG_MAX);
    total->len += name.len + 1 + value.len + 1;
    total->hits += name.hits + value.hits;
}

int
tasklimits_command (const char *const *argv, const char *const *env,
                    uint64_t count, tasklimit_t *over)
{
    s_worst_t w = {.over = over, .count = count};
    s_tmpl_t total = {0, 0};
    uint64_t size = 0;
    size_t n = 0;
    for (; argv[n]; n++) {
        s_tmpl_t a = s_tmpl (argv[n], strlen (argv[n]));
        uint64_t i = s_first_over (a, HEARTH_TASK_ARG_MAX, count, &size);
        s_broken (&w, i,
                  "cmd[%zu] is %llu bytes, over the %d a command's "
                  "argument may be",
                  n, (unsigned long long) size, HEARTH_TASK_ARG_MAX);
        total.len += a.len + 1;
        total.hits += a.hits;
    }
    if (n == 0 || !argv[0][0])
        s_broken (&w, 0, "cmd[0] is empty: a command needs a program");
    if (n > HEARTH_TASK_ARGV_MAX)
        s_broken (&w, 0, "cmd has %zu strings, over the %d a command may have",
                  n, HEARTH_TASK_ARGV_MAX);
    size_t k = 0;
    for (; env && env[k]; k++)
        s_env_entry (&w, env[k], k, &total);
    if (k > HEARTH_TASK_ENV_MAX)
        s_broken (&w, 0,
                  "env has %zu entries, over the %d a command's "
                  "environment may have",
                  k, HEARTH_TASK_ENV_MAX);
    uint64_t i = s_first_over (total, TASKLIMITS_COMMAND_BYTES, count, &size);
    s_broken (&w, i,
              "cmd and env are %llu bytes together, over the %llu a "
              "command's arguments and environment may be (Linux's ARG_MAX)",
              (unsigned long long) size,
              (unsigned long long) TASKLIMITS_COMMAND_BYTES);
    return w.found ? -1 : 0;
}

int
tasklimits_function (const char *fn, const char *arg, uint64_t count,
                     tasklimit_t *over)
{
    s_worst_t w = {.over = over, .count = count};
    size_t fn_len = strlen (fn);
    uint64_t size = 0;
    if (fn_len < 1 || fn_len > HEARTH_TASK_FN_MAX)
        s_broken (&w, 0, "fn is %zu bytes, not 1 to %d as a function's name",
                  fn_len, HEARTH_TASK_FN_MAX);
    s_tmpl_t a = s_tmpl (arg ? arg : "", arg ? strlen (arg) : 0);
    uint64_t i = s_first_over (a, HEARTH_TASK_ARG_FRAME_MAX, count, &size);
    s_broken (&w, i,
              "arg is %llu bytes, over the %d a function's argument "
              "may be",
              (unsigned long long) size, HEARTH_TASK_ARG_FRAME_MAX);
    return w.found ? -1 : 0;
}
