/*  recover.c - the master's journal and its recovery after a restart.

    With --journal DIR every change the registry makes is appended to the
    journal (journal.h) as it happens.  At start-up the master replays
    DIR, rebuilds the registry (registry_restore) and compacts at once, so
    that skipped corrupt records are gone for good.  A journal that falls
    behind (a write failed: a full disk) is made whole by a snapshot of the
    whole state, tried every second until the disk takes it.  When the journal
   held live workers or applications the master is RECOVERING: workers come back
   UNKNOWN and applications without their driver, their executors still counted
   where they run.  Peers are told to reconnect by the answers to their next
   message (RECONNECT_WORKER, RECONNECT_APPLICATION); a worker that registers
   again keeps the executors it reports (the rest are LOST), a driver that
   registers again under its app_id gets its application back.  When all of them
   are back, or at the recovery deadline, the master is ALIVE again: the workers
   still UNKNOWN become DEAD (their executors LOST), the applications whose
   driver did not come back FAILED, and scheduling resumes.  Nothing is ever
   killed because the master restarted.
*/
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/drvkeys.h"
#include "master/jfiles.h"
#include "master/recover.h"
#include "master/regdrivers.h"
#include "master/replicate.h"
#include "master/resume.h"
#include "master/send.h"
#include "master/state.h"

/* Compact once the journal has grown past this, and past the last
   snapshot (journal_snapshot_size). */
static const size_t s_compact_bytes = 4 * 1024 * 1024;
/* The recovery deadline when --recovery-timeout is not set: twice the
   liveness timeout, and no less than this (a peer's socket may be
   waiting up to 2 s, HEARTH_SOCK_RECONNECT_MAX_MS, before it reconnects). */
static const int64_t s_min_recovery_ms = 5000;
/* Workers and applications given up per tick at the deadline. */
static const size_t s_max_give_up_per_tick = 1000;

void
master_publish_master (master_t *m, const char *what, const char *reason)
{
    cJSON *e = cJSON_CreateObject ();
    if (!e)
        return;
    cJSON_AddStringToObject (e, "event", what);
    cJSON_AddStringToObject (e, "url", m->url);
    cJSON_AddStringToObject (e, "status", master_status (m));
    if (reason)
        cJSON_AddStringToObject (e, "reason", reason);
    if (m->journal && (m->recovering || strcmp (what, "recovered") == 0)) {
        cJSON *r = cJSON_AddObjectToObject (e, "recovery");
        cJSON_AddNumberToObject (r, "workers", (double) m->rec.workers);
        cJSON_AddNumberToObject (r, "workers_back",
                                 (double) m->rec.workers_back);
        cJSON_AddNumberToObject (r, "apps", (double) m->rec.apps);
        cJSON_AddNumberToObject (r, "apps_back", (double) m->rec.apps_back);
        cJSON_AddNumberToObject (r, "executors", (double) m->rec.execs);
        cJSON_AddNumberToObject (r, "executors_adopted",
                                 (double) m->rec.execs_adopted);
        cJSON_AddNumberToObject (r, "executors_lost",
                                 (double) m->rec.execs_lost);
        cJSON_AddNumberToObject (
            r, "elapsed_ms", (double) (hearth_mono_ms () - m->rec_start_ms));
    }
    cJSON_AddNumberToObject (e, "time_ms", (double) registry_wall_ms ());
    master_publish (m, "master", e);
}

/* A cluster-mode driver's files go beside the journal before the record
   that needs them, and go when it has ended or is forgotten. */
static void
s_driver_files (master_t *m, const cJSON *record)
{
    const char *t = hearth_json_str (record, "t");
    const char *id = hearth_json_str (record, "id");
    reg_driver_t *d = id ? registry_driver (m->reg, id) : NULL;
    hearth_error_t err;
    if (strcmp (t, "driver-") == 0 || !d || registry_driver_final (d->state)) {
        if (id && journal_files_have (m->journal, id))
            journal_files_drop (m->journal, id);
        return;
    }
    if (d->nframes && !journal_files_have (m->journal, id)
        && journal_files_put (m->journal, id, d->frames, d->nframes, &err) < 0)
        log_error ("journal: driver %s's files: %s (a restart cannot launch "
                   "it again)",
                   id, err.text);
}

static void
s_on_record (void *arg, const cJSON *record, bool sync)
{
    master_t *m = arg;
    const char *t = hearth_json_str (record, "t");
    if (t && strncmp (t, "driver", 6) == 0)
        s_driver_files (m, record);
    int64_t t0 = hearth_mono_us (); /* timed for /metrics */
    journal_append (m->journal, record, sync);
    hearth_prom_observe (&m->metrics.journal,
                         (double) (hearth_mono_us () - t0) / 1e6);
    master_replicate_record (m, record); /* to the standbys, if any */
}

static zframe_t **
s_files (void *arg, const char *driver_id, size_t n)
{
    master_t *m = arg;
    hearth_error_t err;
    zframe_t **frames = journal_files_get (m->journal, driver_id, n, &err);
    if (!frames)
        log_warn ("journal: driver %s: %s", driver_id, err.text);
    return frames;
}

/* Files of drivers that are not waiting to run (any more) go. */
static bool
s_keep_files (void *arg, const char *key)
{
    master_t *m = arg;
    reg_driver_t *d = registry_driver (m->reg, key);
    return d && !registry_driver_final (d->state);
}

static void
s_dump (void *arg, journal_emit_fn *emit, void *emit_arg)
{
    master_t *m = arg;
    registry_dump (m->reg, emit, emit_arg);
}

static void
s_compact (master_t *m)
{
    hearth_error_t err;
    if (journal_compact (m->journal, s_dump, m, &err) < 0)
        log_error ("journal compaction failed: %s", err.text);
}

/* The journal is behind (a write failed, a full disk): the files of live
   cluster-mode drivers that could not be kept, then a snapshot of the
   whole state, which makes it whole again.  A failure is the one already
   logged: try again later, quietly. */
static void
s_repair (master_t *m)
{
    hearth_error_t err;
    zlistx_t *drivers = registry_drivers (m->reg);
    for (reg_driver_t *d = zlistx_first (drivers); d; d = zlistx_next (drivers))
        if (!registry_driver_final (d->state) && d->nframes
            && !journal_files_have (m->journal, d->id)
            && journal_files_put (m->journal, d->id, d->frames, d->nframes,
                                  &err)
                   < 0)
            return;
    if (journal_compact (m->journal, s_dump, m, &err) < 0)
        log_debug ("journal: still behind: %s", err.text);
}

int64_t
master_recovery_timeout (master_t *m)
{
    if (hearth_conf_isset (m->conf, "recovery-timeout"))
        return hearth_conf_ms (m->conf, "recovery-timeout");
    int64_t t = 2 * m->liveness * m->interval_ms;
    return t > s_min_recovery_ms ? t : s_min_recovery_ms;
}

int
master_journal_open (master_t *m, hearth_error_t *err)
{
    const char *dir = hearth_conf_str (m->conf, "journal");
    jstate_t *st = NULL;
    if (!dir)
        return 0;
    if (!(m->journal = journal_open (dir, &st, err)))
        return -1;
    int64_t now = hearth_mono_ms ();
    registry_restored_t r;
    registry_restore (m->reg, jstate_workers (st), jstate_apps (st),
                      jstate_execs (st), jstate_drivers (st), s_files, m, now,
                      &r);
    size_t outs_skipped =
        registry_restore_outputs (m->reg, jstate_outputs (st));
    if (outs_skipped)
        log_warn ("journal %s: %zu records of outputs skipped (their "
                  "application ended, or they made no sense)",
                  dir, outs_skipped);
    jstate_destroy (&st);
    master_driver_keys_restored (m);
    journal_files_gc (m->journal, s_keep_files, m);
    s_compact (m);
    registry_set_journal (m->reg, s_on_record, m);
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w; w = zlistx_next (workers))
        m->rec.workers += w->state == WORKER_UNKNOWN;
    m->rec.apps = r.apps;
    m->rec.execs = r.execs;
    if (registry_pending (m->reg) == 0) {
        log_info ("journal %s: %zu workers, %zu finished applications, %zu "
                  "drivers restored; nothing was running",
                  dir, r.workers, r.finished, r.drivers);
        return 0;
    }
    m->recovering = true;
    m->rec_start_ms = now;
    m->rec_deadline_ms = now + master_recovery_timeout (m);
    log_warn ("RECOVERING from journal %s: waiting up to %lld ms for %zu "
              "workers and %zu applications' drivers to come back (%zu "
              "executors to re-adopt, %zu cluster-mode drivers known)",
              dir, (long long) (m->rec_deadline_ms - now), m->rec.workers,
              m->rec.apps, m->rec.execs, r.drivers);
    return 0;
}

/* The deadline passed: give up on whoever is not back.  Returns true
   when none is left. */
static bool
s_give_up (master_t *m, int64_t now)
{
    char reason[160];
    size_t n = 0;
    /* the timeout, not the wall time since: a pause of the master itself
       moved the deadline (main.c, s_credit_pause), not the peers' due */
    long long timeout = (long long) master_recovery_timeout (m);
    snprintf (reason, sizeof reason,
              "did not come back within %lld ms of the master's restart",
              timeout);
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers);
         w && n < s_max_give_up_per_tick; w = zlistx_next (workers))
        if (w->state == WORKER_UNKNOWN) {
            log_warn ("worker %s (%s) is DEAD: %s", w->id, w->host, reason);
            m->rec.execs_lost += zlistx_size (w->executors);
            registry_worker_dead (m->reg, w, reason, now);
            n++;
        }
    zlistx_t *gone = zlistx_new ();
    zlistx_t *apps = registry_apps (m->reg);
    for (reg_app_t *a = zlistx_first (apps); gone && a; a = zlistx_next (apps))
        if (a->recovering && n + zlistx_size (gone) < s_max_give_up_per_tick)
            zlistx_add_end (gone, (void *) a);
    snprintf (reason, sizeof reason,
              "driver lost: it did not come back within %lld ms of the "
              "master's restart",
              timeout);
    for (reg_app_t *a = gone ? zlistx_first (gone) : NULL; a;
         a = zlistx_next (gone))
        master_app_driver_lost (m, a, reason);
    zlistx_destroy (&gone);
    return registry_pending (m->reg) == 0;
}

static void
s_check_recovery (master_t *m, int64_t now)
{
    const char *why = "every worker and driver is back";
    if (registry_pending (m->reg) > 0) {
        if (now < m->rec_deadline_ms || !s_give_up (m, now))
            return;
        why = "the recovery deadline passed";
    }
    m->recovering = false;
    m->dirty = true;
    log_info ("recovery done in %lld ms (%s): %zu of %zu workers and %zu of "
              "%zu applications back, %zu executors re-adopted, %zu lost",
              (long long) (now - m->rec_start_ms), why, m->rec.workers_back,
              m->rec.workers, m->rec.apps_back, m->rec.apps,
              m->rec.execs_adopted, m->rec.execs_lost);
    master_publish_master (m, "recovered", why);
}

void
master_journal_tick (master_t *m, int64_t now)
{
    if (!m->journal)
        return;
    if (journal_dirty (m->journal)) {
        int64_t t0 = hearth_mono_us ();
        journal_sync (m->journal);
        hearth_prom_observe (&m->metrics.journal,
                             (double) (hearth_mono_us () - t0) / 1e6);
    }
    if (journal_behind (m->journal)) {
        if (journal_repair_due (m->journal, now))
            s_repair (m);
    }
    else if (journal_size (m->journal) > s_compact_bytes
             && journal_size (m->journal) > journal_snapshot_size (m->journal))
        s_compact (m);
    if (m->recovering)
        s_check_recovery (m, now);
}

void
master_journal_close (master_t *m)
{
    if (m->reg)
        registry_set_journal (m->reg, NULL, NULL);
    journal_destroy (&m->journal);
}
