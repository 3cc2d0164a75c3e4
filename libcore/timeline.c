/*  timeline.c - an application's event timeline as inline SVG; see
    timeline.h.

    The drawing, top to bottom: the legend (and the note of what is left
    out), the time axis (seconds since the application started), a strip
    of the stages (a bar each, start to end, in its colour), then each
    executor's lanes: a band per lane over the executor's life, a green
    mark where it was added and a red one where it was removed (the
    reason in the mark's title, and beside it when there is room), the
    attempts as bars on their lanes; dashed lines across the lanes mark
    where each stage started.  Every mark has a <title>, which a browser
    shows on hover.  The SVG scales to the page's width (viewBox). */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/timeline.h"
#include "libcore/webpage_int.h"

/* The drawing's units (viewBox pixels). */
static const double s_width = 1200;  /* the whole width */
static const double s_label_w = 170; /* the executors' labels, left */
static const double s_right = 12;    /* margin right */
static const double s_legend_h = 22; /* legend and note */
static const double s_axis_h = 18;   /* the tick labels */
static const double s_stage_h = 14;  /* one row of the stage strip */
static const double s_lane_h = 12;   /* one lane */
static const double s_bar_h = 10;    /* an attempt's bar */
static const double s_exec_gap = 6;  /* between two executors */
static const double s_bottom = 8;    /* margin below */
static const double s_min_bar = 0.6; /* the narrowest bar drawn */
/* Rows of the stage strip; stages beyond overlap in the last. */
#define S_STAGE_ROWS 4

/* The stages' colours, by id (red is the failed attempts' own). */
static const char *const s_palette[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                        "#76b7b2", "#edc948", "#b07aa1",
                                        "#9c755f", "#17becf", "#bcbd22"};
#define S_NPALETTE (sizeof s_palette / sizeof s_palette[0])
static const char *const s_failed_fill = "#d62728";
static const char *const s_killed_fill = "#9a9a9a";
static const char *const s_lost_fill = "#4d4d4d";

/* The outcomes' names, as the classes and titles say them. */
static const char *const s_outcome[] = {"ok", "failed", "killed", "lost",
                                        "unused"};

/* One drawing in progress. */
typedef struct {
    const hearth_tl_t *tl; /* the input */
    FILE *out;             /* where the SVG goes */
    int *lane;             /* per task: its lane, -1: not drawn */
    int64_t *from;         /* per task: its drawn start */
    int *lanes;            /* per executor: its lanes */
    double *exec_y;        /* per executor: its first lane's y, <0: not */
    size_t first;          /* the first task drawn (the last MAX_TASKS) */
    size_t drawn;          /* tasks drawn */
    size_t placed;         /* executors drawn */
    size_t hidden_execs;   /* executors left out for the lanes' bound */
    size_t stages_hidden;  /* stages on the axis left out for the bound */
    int64_t t0, t1;        /* the axis, µs */
    double lanes_y;        /* the first executor's y */
    double height;         /* the whole height */
} s_draw_t;

/* ---- small helpers ------------------------------------------------------ */

static const char *
s_stage_fill (int64_t stage)
{
    return s_palette[(uint64_t) (stage < 0 ? -stage : stage) % S_NPALETTE];
}

static const char *
s_fill (const hearth_tl_task_t *t)
{
    switch (t->outcome) {
    case HEARTH_TL_FAILED:
        return s_failed_fill;
    case HEARTH_TL_KILLED:
        return s_killed_fill;
    case HEARTH_TL_LOST:
        return s_lost_fill;
    default:
        return s_stage_fill (t->stage);
    }
}

/* s (NULL: "-") escaped, cut to max bytes at a UTF-8 character's start
   (then "..."), control characters as spaces. */
static void
s_text (FILE *out, const char *s, size_t max)
{
    char buf[HEARTH_TL_MAX_TEXT + 1] = "";
    size_t n = 0;
    if (!s)
        s = "-";
    if (max > HEARTH_TL_MAX_TEXT)
        max = HEARTH_TL_MAX_TEXT;
    size_t len = strlen (s);
    bool cut = len > max;
    n = cut ? max : len;
    while (cut && n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
        n--;
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char) s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
    hearth_html_text_n (out, buf, n);
    if (cut)
        fputs ("...", out);
}

/* A duration as text: 850us, 12.3ms, 4.56s, 3m07s. */
static void
s_span (int64_t us, char *buf, size_t size)
{
    if (us < 1000)
        snprintf (buf, size, "%" PRId64 "us", us);
    else if (us < 1000000)
        snprintf (buf, size, "%.1fms", (double) us / 1e3);
    else if (us < 60000000)
        snprintf (buf, size, "%.2fs", (double) us / 1e6);
    else
        snprintf (buf, size, "%" PRId64 "m%02" PRId64 "s", us / 60000000,
                  us / 1000000 % 60);
}

static double
s_x (const s_draw_t *d, int64_t t)
{
    if (t < d->t0)
        t = d->t0;
    if (t > d->t1)
        t = d->t1;
    return s_label_w
           + (double) (t - d->t0) * (s_width - s_label_w - s_right)
                 / (double) (d->t1 - d->t0);
}

/* ---- layout -------------------------------------------------------------- */

/* The axis: from the application's start (the first attempt drawn when
   attempts were left out) to its end or the last attempt's. */
static void
s_axis (s_draw_t *d)
{
    const hearth_tl_t *tl = d->tl;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = d->first; i < tl->ntasks; i++) {
        if (d->lane[i] < 0)
            continue;
        lo = tl->tasks[i].start_us < lo ? tl->tasks[i].start_us : lo;
        hi = hearth_timeline_end (&tl->tasks[i]) > hi
                 ? hearth_timeline_end (&tl->tasks[i])
                 : hi;
    }
    bool cut = tl->cut > 0 || d->first > 0;
    if (!cut && tl->origin_us >= 0 && tl->origin_us < lo)
        lo = tl->origin_us;
    if (tl->end_us >= 0 && tl->end_us > hi && lo != INT64_MAX)
        hi = tl->end_us;
    if (lo == INT64_MAX) { /* no attempt: the executors' lives */
        lo = tl->origin_us;
        hi = tl->end_us;
        for (size_t x = 0; x < tl->nexecs; x++) {
            const hearth_tl_exec_t *e = &tl->execs[x];
            if (e->added_us >= 0 && (lo < 0 || e->added_us < lo))
                lo = e->added_us;
            if (e->removed_us > hi)
                hi = e->removed_us;
        }
        lo = lo < 0 ? 0 : lo;
    }
    d->t0 = lo;
    d->t1 = hi > lo + 1000 ? hi : lo + 1000;
}

/* Whether executor x belongs on the drawing: an attempt drawn on it, or
   a life that meets the axis. */
static bool
s_exec_shown (const s_draw_t *d, size_t x, const bool *has_task)
{
    const hearth_tl_exec_t *e = &d->tl->execs[x];
    if (has_task[x])
        return true;
    int64_t a = e->added_us >= 0 ? e->added_us : d->t0;
    int64_t r = e->removed_us >= 0 ? e->removed_us : d->t1;
    return a <= d->t1 && r >= d->t0;
}

/* Place the executors (their y), at most HEARTH_TL_MAX_LANES lanes in
   all: the later ones are left out (hidden_execs), their attempts too. */
static int
s_place (s_draw_t *d)
{
    const hearth_tl_t *tl = d->tl;
    bool *has = calloc (tl->nexecs ? tl->nexecs : 1, sizeof *has);
    if (!has)
        return -1;
    for (size_t i = d->first; i < tl->ntasks; i++)
        if (d->lane[i] >= 0)
            has[hearth_timeline_exec (tl, tl->tasks[i].exec_id)] = true;
    double y = d->lanes_y;
    int total = 0;
    for (size_t x = 0; x < tl->nexecs; x++) {
        d->exec_y[x] = -1;
        if (!s_exec_shown (d, x, has))
            continue;
        if (total + d->lanes[x] > HEARTH_TL_MAX_LANES) {
            d->hidden_execs++;
            continue;
        }
        d->exec_y[x] = y;
        d->placed++;
        total += d->lanes[x];
        y += d->lanes[x] * s_lane_h + s_exec_gap;
    }
    free (has);
    d->drawn = 0;
    for (size_t i = d->first; i < tl->ntasks; i++) {
        if (d->lane[i] >= 0
            && d->exec_y[hearth_timeline_exec (tl, tl->tasks[i].exec_id)] < 0)
            d->lane[i] = -1;
        d->drawn += d->lane[i] >= 0;
    }
    d->height = y + s_bottom;
    return 0;
}

/* ---- drawing ------------------------------------------------------------- */

/* The note of what is left out, or nothing. */
static void
s_note (const s_draw_t *d)
{
    size_t stages_hidden = d->stages_hidden;
    const hearth_tl_t *tl = d->tl;
    size_t cut = tl->cut + d->first, off = 0;
    for (size_t i = d->first; i < tl->ntasks; i++)
        off += d->lane[i] < 0;
    if (!cut && !off && !d->hidden_execs && !stages_hidden)
        return;
    fprintf (d->out,
             "<text id=\"timeline-note\" class=\"note\" x=\"%.0f\" y=\"14\" "
             "text-anchor=\"end\" fill=\"#a60\">",
             s_width - s_right);
    const char *sep = "";
    if (cut) {
        fprintf (d->out, "the last %zu attempts (%zu earlier not drawn)",
                 tl->ntasks - d->first, cut);
        sep = "; ";
    }
    if (off) {
        fprintf (d->out, "%s%zu attempts without a lane not drawn", sep, off);
        sep = "; ";
    }
    if (d->hidden_execs) {
        fprintf (d->out, "%s%zu executors over %d lanes not drawn", sep,
                 d->hidden_execs, HEARTH_TL_MAX_LANES);
        sep = "; ";
    }
    if (stages_hidden)
        fprintf (d->out, "%s%zu earlier stages not drawn", sep, stages_hidden);
    fputs ("</text>\n", d->out);
}

static void
s_legend_item (FILE *out, double *x, const char *fill, const char *cls,
               const char *label, const char *extra)
{
    fprintf (out,
             "<rect class=\"legend %s\" x=\"%.0f\" y=\"5\" width=\"12\" "
             "height=\"10\" fill=\"%s\"%s/><text x=\"%.0f\" y=\"14\">%s"
             "</text>",
             cls, *x, fill, extra, *x + 16, label);
    *x += 28 + 6 * (double) strlen (label);
}

static void
s_legend (const s_draw_t *d)
{
    double x = 4;
    fputs ("<g class=\"legend\">", d->out);
    s_legend_item (d->out, &x, s_palette[0], "ok",
                   "finished (colour of its stage)", "");
    s_legend_item (d->out, &x, s_failed_fill, "failed", "failed", "");
    s_legend_item (d->out, &x, s_killed_fill, "killed", "killed", "");
    s_legend_item (d->out, &x, s_lost_fill, "lost", "lost", "");
    s_legend_item (d->out, &x, s_palette[0], "unused", "result not used",
                   " fill-opacity=\"0.35\"");
    fputs ("</g>\n", d->out);
}

/* A tick step of 1, 2 or 5 times a power of ten (µs), about 8 ticks. */
static int64_t
s_step (int64_t span)
{
    int64_t p = 1000;
    for (;;) {
        static const int m[] = {1, 2, 5};
        for (size_t i = 0; i < 3; i++)
            if (span / (p * m[i]) <= 8)
                return p * m[i];
        p *= 10;
    }
}

static void
s_tick_label (int64_t rel, int64_t step, char *buf, size_t size)
{
    if (step >= 60000000)
        snprintf (buf, size, "%" PRId64 "m%02" PRId64 "s", rel / 60000000,
                  rel / 1000000 % 60);
    else
        snprintf (buf, size, "%.*fs",
                  step >= 1000000  ? 0
                  : step >= 100000 ? 1
                  : step >= 10000  ? 2
                                   : 3,
                  (double) rel / 1e6);
}

/* The ticks: labels over the strip, faint lines down to the bottom. */
static void
s_ticks (const s_draw_t *d)
{
    int64_t step = s_step (d->t1 - d->t0);
    int64_t origin = d->tl->origin_us >= 0 && d->tl->origin_us <= d->t0
                         ? d->tl->origin_us
                         : d->t0;
    int64_t k = (d->t0 - origin + step - 1) / step;
    char buf[32];
    fputs ("<g class=\"axis\" font-size=\"10\" fill=\"#555\">", d->out);
    for (int64_t t = origin + k * step; t <= d->t1;
         t = t > d->t1 - step ? INT64_MAX : t + step) {
        double x = s_x (d, t);
        s_tick_label (t - origin, step, buf, sizeof buf);
        fprintf (d->out,
                 "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
                 "stroke=\"#e4e4e4\"/><text x=\"%.1f\" y=\"%.0f\" "
                 "text-anchor=\"middle\">%s</text>",
                 x, x, s_legend_h + s_axis_h - 4, d->height - s_bottom, x,
                 s_legend_h + s_axis_h - 6, buf);
    }
    fprintf (d->out, "<text x=\"4\" y=\"%.0f\">since the start</text></g>\n",
             s_legend_h + s_axis_h - 6);
}

/* Whether stage s is on the axis (started, and not over before it). */
static bool
s_stage_on (const s_draw_t *d, const hearth_tl_stage_t *s)
{
    return s->start_us >= 0 && s->start_us <= d->t1
           && (s->end_us < 0 || s->end_us >= d->t0);
}

static void
s_stage_bar (const s_draw_t *d, const hearth_tl_stage_t *s, int row)
{
    double x0 = s_x (d, s->start_us);
    double x1 = s_x (d, s->end_us >= 0 ? s->end_us : d->t1);
    double w = x1 - x0 < s_min_bar ? s_min_bar : x1 - x0;
    double y = s_legend_h + s_axis_h + row * s_stage_h;
    char dur[32];
    s_span ((s->end_us >= 0 ? s->end_us : d->t1) - s->start_us, dur,
            sizeof dur);
    fprintf (d->out,
             "<g class=\"stage\" data-stage=\"%" PRId64 "\"><rect x=\"%.1f\" "
             "y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\" "
             "fill-opacity=\"0.55\"/><title>stage %" PRId64 " ",
             s->id, x0, y, w, s_stage_h - 2, s_stage_fill (s->id), s->id);
    s_text (d->out, s->name, HEARTH_TL_MAX_TEXT);
    fputs (": ", d->out);
    s_text (d->out, s->state ? s->state : "RUNNING", 32);
    fprintf (d->out, ", %s</title>", dur);
    size_t room = (size_t) (w / 6.5);
    if (room >= 4) {
        fprintf (d->out,
                 "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\">%" PRId64 " ",
                 x0 + 2, y + s_stage_h - 5, s->id);
        s_text (d->out, s->name, room > 8 ? room - 6 : 2);
        fputs ("</text>", d->out);
    }
    fputs ("</g>\n", d->out);
}

/* The stages drawn, in order of id: those on the axis but the earlier
   ones beyond HEARTH_TL_MAX_STAGES.  mode 0: count the rows of the
   strip (returned); 1: draw the strip; 2: draw the start lines. */
static size_t
s_stages (s_draw_t *d, int mode)
{
    const hearth_tl_t *tl = d->tl;
    size_t on = 0, seen = 0, rows = 0;
    int64_t row_end[S_STAGE_ROWS];
    for (size_t i = 0; i < tl->nstages; i++)
        on += s_stage_on (d, &tl->stages[i]);
    d->stages_hidden =
        on > HEARTH_TL_MAX_STAGES ? on - HEARTH_TL_MAX_STAGES : 0;
    for (int r = 0; r < S_STAGE_ROWS; r++)
        row_end[r] = INT64_MIN;
    for (size_t i = 0; i < tl->nstages; i++) {
        const hearth_tl_stage_t *s = &tl->stages[i];
        if (!s_stage_on (d, s) || seen++ < d->stages_hidden)
            continue;
        int r = 0;
        while (r < S_STAGE_ROWS - 1 && row_end[r] > s->start_us)
            r++;
        row_end[r] = s->end_us >= 0 ? s->end_us : INT64_MAX;
        rows = (size_t) r + 1 > rows ? (size_t) r + 1 : rows;
        if (mode == 1)
            s_stage_bar (d, s, r);
        if (mode != 2)
            continue;
        double x = s_x (d, s->start_us);
        fprintf (d->out,
                 "<line class=\"stage-start\" x1=\"%.1f\" x2=\"%.1f\" "
                 "y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                 "stroke-dasharray=\"3 3\"><title>stage %" PRId64
                 " starts</title></line>\n",
                 x, x, d->lanes_y - 2, d->height - s_bottom,
                 s_stage_fill (s->id), s->id);
    }
    return rows;
}

/* A mark across an executor's lanes: added (green) or removed (red). */
static void
s_exec_mark (const s_draw_t *d, const hearth_tl_exec_t *e, double y, int lanes,
             bool added)
{
    int64_t t = added ? e->added_us : e->removed_us;
    if (t < d->t0 || t > d->t1)
        return;
    double x = s_x (d, t);
    fprintf (
        d->out,
        "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
        "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"><title>executor %" PRId64
        " ",
        added ? "exec-added" : "exec-removed", x, x, y - 2,
        y + lanes * s_lane_h, added ? "#2a2" : "#b00", e->id);
    if (added) {
        fputs ("added on ", d->out);
        s_text (d->out, e->host, HEARTH_TL_MAX_TEXT);
        fprintf (d->out, ", %" PRId64 " cores</title></line>\n", e->cores);
        return;
    }
    fputs ("removed: ", d->out);
    s_text (d->out, e->reason, HEARTH_TL_MAX_TEXT);
    fputs ("</title></line>\n", d->out);
    double room = s_width - s_right - x - 4;
    if (room >= 60 && e->reason) {
        fprintf (d->out,
                 "<text class=\"exec-reason\" x=\"%.1f\" y=\"%.0f\" "
                 "font-size=\"10\" fill=\"#b00\">",
                 x + 4, y + s_lane_h - 3);
        s_text (d->out, e->reason, (size_t) (room / 6));
        fputs ("</text>\n", d->out);
    }
}

/* One executor: its label, a band per lane over its life, its marks. */
static void
s_exec (const s_draw_t *d, size_t xi)
{
    const hearth_tl_exec_t *e = &d->tl->execs[xi];
    double y = d->exec_y[xi];
    int lanes = d->lanes[xi];
    double a = s_x (d, e->added_us >= 0 ? e->added_us : d->t0);
    double r = s_x (d, e->removed_us >= 0 ? e->removed_us : d->t1);
    fprintf (d->out, "<g class=\"exec\" data-exec=\"%" PRId64 "\">", e->id);
    for (int l = 0; l < lanes; l++)
        fprintf (d->out,
                 "<rect class=\"lane\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
                 "height=\"%.0f\" fill=\"%s\"/>",
                 a, y + l * s_lane_h, r - a > 0 ? r - a : s_min_bar, s_lane_h,
                 l % 2 ? "#eef1f5" : "#f6f8fa");
    fprintf (d->out,
             "<text x=\"4\" y=\"%.0f\" font-size=\"11\">executor %" PRId64
             " <tspan fill=\"#777\">",
             y + s_lane_h - 2, e->id);
    s_text (d->out, e->host, 18);
    fprintf (d->out, "</tspan><title>executor %" PRId64 " on ", e->id);
    s_text (d->out, e->host, HEARTH_TL_MAX_TEXT);
    fprintf (d->out, ", %" PRId64 " cores, %d lanes</title></text>\n", e->cores,
             lanes);
    s_exec_mark (d, e, y, lanes, true);
    s_exec_mark (d, e, y, lanes, false);
    fputs ("</g>\n", d->out);
}

static void
s_task (const s_draw_t *d, size_t i)
{
    const hearth_tl_task_t *t = &d->tl->tasks[i];
    long xi = hearth_timeline_exec (d->tl, t->exec_id);
    double x0 = s_x (d, d->from[i]), x1 = s_x (d, hearth_timeline_end (t));
    double y = d->exec_y[xi] + d->lane[i] * s_lane_h + (s_lane_h - s_bar_h) / 2;
    char dur[32], at[32];
    unsigned o = (unsigned) t->outcome < 5 ? (unsigned) t->outcome : 0;
    s_span (hearth_timeline_end (t) - t->start_us, dur, sizeof dur);
    s_span (t->start_us - (d->tl->origin_us >= 0 ? d->tl->origin_us : d->t0),
            at, sizeof at);
    fprintf (
        d->out,
        "<rect class=\"task %s\" data-lane=\"%d\" x=\"%.2f\" y=\"%.0f\" "
        "width=\"%.2f\" height=\"%.0f\" fill=\"%s\"%s><title>stage %" PRId64
        " task %" PRId64 ".%" PRId64 " on executor %" PRId64
        ": %s, %s from %s</title></rect>\n",
        s_outcome[o], d->lane[i], x0, y,
        x1 - x0 < s_min_bar ? s_min_bar : x1 - x0, s_bar_h, s_fill (t),
        t->outcome == HEARTH_TL_UNUSED ? " fill-opacity=\"0.35\""
        : x1 - x0 >= 3                 ? " stroke=\"#fff\" stroke-width=\"0.6\""
                                       : "",
        t->stage, t->index, t->attempt, t->exec_id, s_outcome[o], dur, at);
}

static void
s_draw (s_draw_t *d)
{
    FILE *out = d->out;
    fprintf (out,
             "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
             "viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" "
             "font-family=\"system-ui,sans-serif\" font-size=\"11\" "
             "role=\"img\" aria-label=\"timeline of the executors and task "
             "attempts\" data-drawn=\"%zu\">\n",
             s_width, d->height, d->drawn);
    s_legend (d);
    s_ticks (d);
    s_stages (d, 1);
    for (size_t x = 0; x < d->tl->nexecs; x++)
        if (d->exec_y[x] >= 0)
            s_exec (d, x);
    s_stages (d, 2);
    for (size_t i = d->first; i < d->tl->ntasks; i++)
        if (d->lane[i] >= 0)
            s_task (d, i);
    s_note (d);
    fputs ("</svg>\n", out);
}

int
hearth_timeline_svg (const hearth_tl_t *tl, FILE *out)
{
    s_draw_t d = {.tl = tl, .out = out};
    size_t nx = tl->nexecs ? tl->nexecs : 1;
    int rc = -1;
    d.first =
        tl->ntasks > HEARTH_TL_MAX_TASKS ? tl->ntasks - HEARTH_TL_MAX_TASKS : 0;
    d.lane = calloc (tl->ntasks ? tl->ntasks : 1, sizeof *d.lane);
    d.from = calloc (tl->ntasks ? tl->ntasks : 1, sizeof *d.from);
    d.lanes = calloc (nx, sizeof *d.lanes);
    d.exec_y = calloc (nx, sizeof *d.exec_y);
    if (!d.lane || !d.from || !d.lanes || !d.exec_y
        || hearth_timeline_lanes (tl, d.lane, d.lanes, d.from) < 0)
        goto done;
    s_axis (&d);
    d.lanes_y =
        s_legend_h + s_axis_h + (double) s_stages (&d, 0) * s_stage_h + 4;
    if (s_place (&d) < 0)
        goto done;
    rc = 0;
    if (d.drawn == 0 && d.placed == 0) {
        fputs ("<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
               "viewBox=\"0 0 1200 24\" width=\"100%\" "
               "font-family=\"system-ui,sans-serif\" font-size=\"12\" "
               "data-drawn=\"0\"><text x=\"4\" y=\"16\">No executor and no "
               "task attempt in this log.</text></svg>\n",
               out);
        goto done;
    }
    s_draw (&d);
done:
    free (d.lane);
    free (d.from);
    free (d.lanes);
    free (d.exec_y);
    return rc;
}
