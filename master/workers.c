/*  workers.c - what workers tell hearth-master: REGISTER_WORKER (with
    what each one runs: the master keeps, re-adopts or loses executors and
    drivers by it), their HEARTBEAT (with what they use beyond the
    master's books), and EXECUTOR_STATE_CHANGED (an application fails
    after too many executor failures in a row); see workers.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcore/clock.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/web.h"
#include "master/authz.h"
#include "master/claims.h"
#include "master/drivers.h"
#include "master/regworkers.h"
#include "master/send.h"
#include "master/workers.h"

static const cJSON *
s_reported (const cJSON *reported, const reg_exec_t *e)
{
    const cJSON *r;
    cJSON_ArrayForEach (r, reported)
    {
        if (hearth_json_int (r, "exec_id", -1) == e->exec_id
            && strcmp (hearth_json_str (r, "app_id"), e->app->id) == 0)
            return r;
    }
    return NULL;
}

/* What the worker says e holds is what it holds (a master restarted
   from an older journal learns it here), unless another executor of
   the master's books holds one of those addresses: then false, and the
   books stay as they are.  *said is the caller's to clear. */
static bool
s_said_resources (const reg_worker_t *w, const reg_exec_t *e,
                  const cJSON *reported, hearth_resources_t *said)
{
    char buf[HEARTH_ID_MAX + 32], me[HEARTH_ID_MAX + 32];
    if (hearth_resources_from_json (
            said, cJSON_GetObjectItem (reported, "resources"), NULL)
        < 0)
        return false;
    snprintf (me, sizeof me, "%s/%d", e->app->id, e->exec_id);
    for (size_t i = 0; i < said->n; i++)
        for (size_t j = 0; j < said->v[i].naddrs; j++) {
            const char *who = registry_worker_holder (
                w, said->v[i].name, said->v[i].addrs[j], buf, sizeof buf);
            if (who && strcmp (who, me) != 0) {
                log_warn ("worker %s says executor %s holds %s %s, which %s "
                          "holds: kept as the master's books say",
                          w->id, me, said->v[i].name, said->v[i].addrs[j], who);
                return false;
            }
        }
    return true;
}

/* After a re-registration: what the master placed on w but the worker no
   longer reports is LOST; what it reports, the master keeps (re-adopts,
   after a restart), RUNNING with the pid and the addresses the worker
   lists (registry_exec_listed journals and publishes them).  restored: w
   was UNKNOWN (the master restarted), counted for the recovery's report. */
static void
s_reconcile (master_t *m, reg_worker_t *w, const cJSON *reported, bool restored)
{
    zlistx_t *lost = zlistx_new ();
    if (!lost)
        return;
    for (reg_exec_t *e = zlistx_first (w->executors); e;
         e = zlistx_next (w->executors)) {
        const cJSON *r = s_reported (reported, e);
        if (!r) {
            zlistx_add_end (lost, (void *) e);
            continue;
        }
        hearth_resources_t said = {0};
        bool take = s_said_resources (w, e, r, &said);
        registry_exec_listed (m->reg, e,
                              (int) hearth_json_int (r, "pid", e->pid),
                              take ? &said : NULL);
        hearth_resources_clear (&said);
    }
    if (restored) {
        m->rec.execs_adopted += zlistx_size (w->executors) - zlistx_size (lost);
        m->rec.execs_lost += zlistx_size (lost);
    }
    for (reg_exec_t *e = zlistx_first (lost); e; e = zlistx_next (lost))
        registry_exec_set_state (m->reg, e, EXEC_LOST,
                                 "not reported by its worker", -1, true);
    zlistx_destroy (&lost);
}

/* Add one foreign executor's addresses to set (names merged). */
static void
s_add_foreign (hearth_resources_t *set, const cJSON *json)
{
    hearth_resources_t r = {0};
    if (hearth_resources_from_json (&r, json, NULL) < 0)
        return;
    for (size_t i = 0; i < r.n; i++) {
        const hearth_resource_t *had = hearth_resources_find (set, r.v[i].name);
        size_t n = (had ? had->naddrs : 0) + r.v[i].naddrs;
        const char **addrs = calloc (n ? n : 1, sizeof *addrs);
        if (!addrs)
            break;
        size_t k = 0;
        for (size_t j = 0; had && j < had->naddrs; j++)
            addrs[k++] = had->addrs[j];
        for (size_t j = 0; j < r.v[i].naddrs; j++)
            addrs[k++] = r.v[i].addrs[j];
        hearth_resources_t merged = {0};
        /* rebuilt with this name last; a repeated address (two foreign
           executors claiming one) is refused: the old set stays */
        for (size_t j = 0; j < set->n; j++)
            if (strcmp (set->v[j].name, r.v[i].name) != 0)
                hearth_resources_add (&merged, set->v[j].name,
                                      (const char *const *) set->v[j].addrs,
                                      set->v[j].naddrs, NULL);
        if (hearth_resources_add (&merged, r.v[i].name, addrs, k, NULL) == 0) {
            hearth_resources_clear (set);
            *set = merged;
        }
        else
            hearth_resources_clear (&merged);
        free (addrs);
    }
    hearth_resources_clear (&r);
}

/* Cores and memory of the executors a worker lists that the master's
   books do not have on it; executors of applications the master does not
   know are noted as orphans.  On registration (kill_ended), those of
   applications the master knows have ended are killed: they ended while
   the worker could not be told (the master restarted, or the worker was
   cut off). */
static void
s_foreign_usage (master_t *m, reg_worker_t *w, const cJSON *executors,
                 bool kill_ended, int *cores, int64_t *memory)
{
    const cJSON *e;
    *cores = 0;
    *memory = 0;
    hearth_resources_t foreign = {0};
    cJSON_ArrayForEach (e, executors)
    {
        const char *app_id = hearth_json_str (e, "app_id");
        int exec_id = (int) hearth_json_int (e, "exec_id", 0);
        reg_exec_t *known = registry_exec (m->reg, app_id, exec_id);
        if (known && known->worker == w)
            continue;
        /* one the master ended is still in its books, until it ends */
        if (!registry_stopping_has (w, app_id, exec_id)) {
            *cores += (int) hearth_json_int (e, "cores", 0);
            *memory += hearth_json_int (e, "memory_mb", 0);
            registry_note_orphan (m->reg, app_id, exec_id);
            s_add_foreign (&foreign, cJSON_GetObjectItem (e, "resources"));
        }
        reg_app_t *app = registry_app (m->reg, app_id);
        if (kill_ended && app && app->state > APP_RUNNING)
            master_send_kill (m, w, app_id, exec_id,
                              "its application has ended");
    }
    registry_worker_report_resources (m->reg, w, &foreign);
}

/* A worker registering under a new id with the work dir of another live
   one replaced it: a worker holds its work dir's lock while it runs and
   kills what an earlier one left there, so the earlier one is gone, with
   its executors.  Say so now rather than after liveness x interval, or,
   for a worker restored UNKNOWN from the journal (restarted on its work
   dir while the master was down), rather than at the recovery deadline.
   The work dir is told by work_dir_id (the machine's boot and the lock
   file's device and inode), not by host and path: two workers on one
   host may use the same path in different mount namespaces.  Only a
   registration with the key the old one registered with replaces it: a
   work_dir_id is the worker's word, and another worker key could name
   one to end a live worker (key: the registration's, borrowed). */
static void
s_replaced (master_t *m, const char *key, const char *id,
            const char *work_dir_id)
{
    if (!work_dir_id || !work_dir_id[0])
        return;
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w; w = zlistx_next (workers))
        if (w->state != WORKER_DEAD && strcmp (w->id, id) != 0 && w->work_dir_id
            && strcmp (w->work_dir_id, work_dir_id) == 0) {
            if (master_worker_key (m, key, w) == REG_KEY_OTHER) {
                log_warn ("worker %s says it holds the work dir of worker %s "
                          "(%s), which registered with another key: %s is "
                          "not taken for replaced",
                          id, w->id, w->host, w->id);
                return;
            }
            char reason[HEARTH_ID_MAX + 64];
            snprintf (reason, sizeof reason, "replaced by worker %s", id);
            log_warn ("worker %s (%s) is DEAD: %s in %s", w->id, w->host,
                      reason, w->work_dir ? w->work_dir : "its work dir");
            if (w->state == WORKER_UNKNOWN)
                m->rec.execs_lost += zlistx_size (w->executors);
            registry_worker_dead (m->reg, w, reason, hearth_mono_ms ());
            return; /* only one can have held the lock */
        }
}

/* Whether a registration of old's id comes from old itself: on its
   connection, or from the same work dir (the worker reconnecting on a
   fresh socket, or restarted there: one worker holds a work dir's lock
   at a time).  The work dir is told by work_dir_id when both have one,
   else by host and path. */
static bool
s_same_worker (const reg_worker_t *old, zframe_t *rid, const cJSON *b)
{
    const char *dir_id = hearth_json_str (b, "work_dir_id");
    const char *dir = hearth_json_str (b, "work_dir");
    if (old->routing_id && zframe_eq (old->routing_id, rid))
        return true;
    if (old->work_dir_id && dir_id)
        return strcmp (old->work_dir_id, dir_id) == 0;
    return strcmp (old->host, hearth_json_str (b, "host")) == 0 && dir
           && old->work_dir && strcmp (old->work_dir, dir) == 0;
}

/* A second live worker under old's id is refused, whatever its host
   (issue 13: two of them took the id from each other for ever), with a
   reason that names the one that has it. */
static void
s_refuse_duplicate (master_t *m, zframe_t *rid, const reg_worker_t *old,
                    const cJSON *b)
{
    char since[32], reason[1024];
    time_t t = (time_t) (old->registered_ms / 1000);
    struct tm tm;
    gmtime_r (&t, &tm);
    strftime (since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *dir = hearth_json_str (b, "work_dir");
    log_warn ("worker %s at %s (work dir %s) refused: id in use by a live "
              "worker at %s (work dir %s, registered at %s)",
              old->id, hearth_json_str (b, "host"), dir ? dir : "?", old->host,
              old->work_dir ? old->work_dir : "?", since);
    snprintf (reason, sizeof reason,
              "duplicate worker id: %s is in use by a live worker at %s "
              "(work dir %s, registered at %s, %lld s ago); give this "
              "worker another --id",
              old->id, old->host, old->work_dir ? old->work_dir : "unknown",
              since,
              (long long) ((registry_wall_ms () - old->registered_ms) / 1000));
    master_send_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED, reason);
}

void
master_register_worker (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    const char *id = hearth_json_str (b, "id");
    const char *host = hearth_json_str (b, "host");
    reg_worker_t *old = registry_worker (m->reg, id);
    bool restored = old && old->state == WORKER_UNKNOWN;
    if (old && old->state == WORKER_ALIVE && !s_same_worker (old, rid, b)) {
        s_refuse_duplicate (m, rid, old, b);
        return;
    }
    /* its id is its key's: UNKNOWN after a restart, and from the same
       work dir, too (what a worker says of its work dir proves nothing) */
    if (old && !master_authorize_worker (m, from, old))
        return;
    s_replaced (m, from->key, id, hearth_json_str (b, "work_dir_id"));
    hearth_resources_t offered = {0};
    hearth_error_t rerr;
    if (hearth_resources_from_json (&offered,
                                    cJSON_GetObjectItem (b, "resources"), &rerr)
        < 0) {
        char text[400];
        snprintf (text, sizeof text, "bad resources: %s", rerr.text);
        master_send_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED, text);
        return;
    }
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive (b, "labels");
    hearth_error_t lerr;
    if (hearth_labels_check (labels, &lerr) < 0) {
        hearth_resources_clear (&offered);
        char text[400];
        snprintf (text, sizeof text, "bad labels: %s", lerr.text);
        master_send_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED, text);
        return;
    }
    registry_worker_desc_t desc = {id,
                                   host,
                                   hearth_json_str (b, "version"),
                                   hearth_json_str (b, "work_dir"),
                                   (int) hearth_json_int (b, "cores", 1),
                                   hearth_json_int (b, "memory_mb", 1),
                                   rid,
                                   hearth_json_str (b, "work_dir_id"),
                                   &offered,
                                   from->key,
                                   hearth_json_str (b, "web_url"),
                                   labels};
    reg_worker_t *w =
        registry_worker_register (m->reg, &desc, hearth_mono_ms ());
    hearth_resources_clear (&offered);
    if (!w) {
        master_send_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED,
                            "master out of memory");
        return;
    }
    const cJSON *execs = cJSON_GetObjectItem (b, "executors");
    const cJSON *drivers = cJSON_GetObjectItem (b, "drivers");
    int cores;
    int64_t memory;
    m->rec.workers_back += restored;
    s_reconcile (m, w, execs, restored);
    registry_stopping_listed (w, execs, true, hearth_mono_ms (), 0);
    master_drivers_reconcile (m, w, drivers);
    s_foreign_usage (m, w, execs, true, &cores, &memory);
    master_claims_reported (m, w, cJSON_GetObjectItem (b, "apps"));
    master_drivers_foreign (m, w, drivers, &cores, &memory);
    registry_worker_report (m->reg, w, cores, memory);
    log_info ("worker %s registered%s: %s, %d cores, %lld MiB", w->id,
              restored ? " again after the master's restart"
              : old    ? " again"
                       : "",
              w->host, w->cores, (long long) w->memory_mb);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_REGISTERED_WORKER);
    if (!reply)
        return;
    cJSON_AddNumberToObject (reply->body, "heartbeat_interval_ms",
                             (double) m->interval_ms);
    cJSON_AddNumberToObject (reply->body, "heartbeat_liveness",
                             (double) m->liveness);
    cJSON_AddStringToObject (reply->body, "master_url", m->url);
    if (m->web)
        cJSON_AddStringToObject (reply->body, "master_web_url",
                                 hearth_web_url (m->web));
    master_send (m, rid, reply);
    m->dirty = true;
}

/* The heartbeat event {event, kind, time_ms, worker, epoch}, printed
   from the record as master_publish prints its tree: one a heartbeat,
   and the tree's two dozen allocations were a fifth of the master's
   time at 50,000 workers (perf). */
static void
s_publish_heartbeat (master_t *m, const reg_worker_t *w)
{
    static const char head[] =
        "{\"event\":\"heartbeat\",\"kind\":\"worker\",\"time_ms\":";
    char stack[4096];
    hearth_jsonbuf_t buf;
    int64_t now = registry_wall_ms ();
    hearth_jsonbuf_init (&buf, stack, sizeof stack);
    bool ok = hearth_json_put (&buf, head, sizeof head - 1)
              && hearth_json_put_number (&buf, (double) now)
              && hearth_json_put (&buf, ",\"worker\":", 10)
              && registry_worker_print (w, now, &buf);
    if (ok && m->epoch)
        ok = hearth_json_put (&buf, ",\"epoch\":", 9)
             && hearth_json_put_number (&buf, (double) m->epoch);
    if (ok && hearth_json_put (&buf, "}", 1) && hearth_jsonbuf_finish (&buf))
        master_publish_text (m, "heartbeat", buf.data, buf.len);
    hearth_jsonbuf_release (&buf);
}

void
master_worker_heartbeat (master_t *m, zframe_t *rid, const cJSON *b)
{
    const char *id = hearth_json_str (b, "id");
    reg_worker_t *w = registry_worker (m->reg, id);
    if (!w || w->state != WORKER_ALIVE || !zframe_eq (w->routing_id, rid)) {
        log_info ("heartbeat from unknown worker %s: asking it to register",
                  id);
        master_send_reason (m, rid, HEARTH_CMD_RECONNECT_WORKER,
                            !w ? "the master does not know this worker"
                            : w->state == WORKER_UNKNOWN
                                ? "the master restarted: register again"
                            : w->state == WORKER_DEAD
                                ? "the master timed this worker out"
                                : "a new connection: register again");
        return;
    }
    /* By id too: one connection may carry many workers (load tests). */
    registry_touch_worker (m->reg, w, hearth_mono_ms ());
    registry_worker_shuffle_bytes (
        m->reg, w, (uint64_t) hearth_json_int (b, "shuffle_bytes", 0));
    registry_worker_persisted_bytes (
        m->reg, w, (uint64_t) hearth_json_int (b, "persisted_bytes", 0));
    /* Without a list, what it uses beyond the master's books is foreign. */
    const cJSON *execs = cJSON_GetObjectItem (b, "executors");
    if (registry_stopping_listed (w, execs, false, hearth_mono_ms (),
                                  m->interval_ms * m->liveness))
        m->dirty = true;
    int cores = (int) hearth_json_int (b, "cores_used", 0) - w->cores_used;
    int64_t memory =
        hearth_json_int (b, "memory_used_mb", 0) - w->memory_used_mb;
    if (execs)
        s_foreign_usage (m, w, execs, false, &cores, &memory);
    if (execs)
        master_drivers_foreign (m, w, cJSON_GetObjectItem (b, "drivers"),
                                &cores, &memory);
    if (registry_worker_report (m->reg, w, cores > 0 ? cores : 0,
                                memory > 0 ? memory : 0))
        m->dirty = true;
    if (!master_publishing (m, "heartbeat"))
        return;
    s_publish_heartbeat (m, w);
}

void
master_worker_stopping (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "id");
    const char *why = hearth_json_str (msg->body, "reason");
    reg_worker_t *w = registry_worker (m->reg, id);
    if (!w || w->state != WORKER_ALIVE || !zframe_eq (w->routing_id, rid)) {
        log_debug ("WORKER_STOPPING of %s ignored: not from that live worker",
                   id);
        return;
    }
    const char *reason = why[0] ? why : "stopped";
    log_warn ("worker %s (%s) is DEAD: %s (%zu executors and %zu drivers "
              "lost with it)",
              w->id, w->host, reason, zlistx_size (w->executors),
              zlistx_size (w->drivers));
    registry_worker_dead (m->reg, w, reason, hearth_mono_ms ());
}

/* The worker could not start exec (FAILED before RUNNING: no work dir,
   a full disk): it backs off, and once every launch fails it is
   unhealthy (registry.h).  Its lines are limited per worker: a worker
   that fails every launch fails them all alike. */
static void
s_launch_failed (master_t *m, reg_exec_t *exec, const char *message)
{
    reg_worker_t *w = exec->worker;
    int64_t now = hearth_mono_ms ();
    char key[HEARTH_ID_MAX + 32];
    snprintf (key, sizeof key, "launch failed on %s", w->id);
    hearth_log_limited (m->launch_log, HEARTH_LOG_WARN, key, now,
                        "executor %s/%d on %s: FAILED to start, %s",
                        exec->app->id, exec->exec_id, w->id,
                        message ? message : "no reason given");
    if (registry_worker_launch_failed (m->reg, w, message, now))
        log_warn ("worker %s is unhealthy: its last %d executor launches "
                  "failed (%s); it gets only what other workers cannot take, "
                  "one executor at a time, until a launch succeeds",
                  w->id, w->launch_failures, w->unhealthy);
}

/* The worker refused to run exec as anyone (its application's key names
   no user there, or one missing there: docs/security.md, "Tasks run as
   their submitter"), or at all (the application runs there with another
   token, the launch is not its driver's: "An application's id and its
   data"): not the worker's failure, and no launch would do better (the
   application's key maps alike everywhere; an id another key holds on
   that worker is one the master gives no other key when it knows), so
   the application ends at once with the worker's reason, which its
   driver hears (EXECUTOR_UPDATED, APPLICATION_REMOVED).  A user the
   worker could not look up (its passwd database did not answer) is no
   refusal: the worker reports an ordinary FAILED launch
   (s_launch_failed), which is tried again. */
static void
s_user_refused (master_t *m, reg_exec_t *exec, registry_exec_report_t *report)
{
    char why[HEARTH_ERROR_TEXT_MAX];
    reg_app_t *app = exec->app; /* the executor goes with its final state */
    snprintf (why, sizeof why, "executor %d refused on worker %s: %s",
              exec->exec_id, exec->worker->id,
              report->message ? report->message : "no reason given");
    log_warn ("application %s ends: %s", app->id, why);
    report->exit_reason = "USER_REFUSED";
    registry_exec_report (m->reg, exec, report);
    registry_app_end (m->reg, app, APP_FAILED, why, master_kill_executor, m);
}

static int
s_exec_state (const char *name)
{
    for (int i = 0; hearth_executor_states[i]; i++)
        if (strcmp (hearth_executor_states[i], name) == 0)
            return i;
    return -1;
}

void
master_executor_state_changed (void *arg, const hearth_from_t *from,
                               hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    const char *app_id = hearth_json_str (b, "app_id");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    reg_worker_t *w = master_sender_worker (m, rid);
    if (!w)
        return;
    reg_exec_t *exec = registry_exec (m->reg, app_id, exec_id);
    int state = s_exec_state (hearth_json_str (b, "state"));
    if (!exec || !zframe_eq (exec->worker->routing_id, rid)) {
        /* one the master ended: the worker has stopped it */
        if (state >= 0 && registry_exec_final (state)
            && registry_stopping_ended (w, app_id, exec_id)) {
            log_debug ("executor %s/%d on %s ended: its cores are free", app_id,
                       exec_id, w->id);
            m->dirty = true;
            return;
        }
        log_debug ("state of unknown executor %s/%d ignored", app_id, exec_id);
        return;
    }
    if (state < 0 || (int) exec->state == state)
        return;
    reg_app_t *app = exec->app;
    const char *message = hearth_json_str (b, "message");
    const char *reason = hearth_json_str (b, "reason");
    bool oom = reason && strcmp (reason, "OOM_KILLED") == 0;
    registry_exec_report_t report = {
        .state = state,
        .message = message,
        .exit_status = (int) hearth_json_int (b, "exit_status", -1),
        .signal = (int) hearth_json_int (b, "signal", 0),
        .pid = (int) hearth_json_int (b, "pid", exec->pid),
        .peak_rss_bytes = hearth_json_int (b, "peak_rss_bytes", 0),
        .memory_limit_bytes = hearth_json_int (b, "memory_limit_bytes", 0),
        .exit_reason = oom ? "OOM_KILLED" : NULL};
    if (state == EXEC_FAILED && reason
        && strcmp (reason, "USER_REFUSED") == 0) {
        s_user_refused (m, exec, &report);
        return;
    }
    if (exec->state == EXEC_LAUNCHING && state == EXEC_FAILED)
        s_launch_failed (m, exec, message);
    else
        log_info ("executor %s/%d on %s: %s%s%s", app_id, exec_id,
                  exec->worker->id, hearth_executor_states[state],
                  message ? ", " : "", message ? message : "");
    if (state == EXEC_RUNNING
        && registry_worker_launch_ok (m->reg, exec->worker))
        log_info ("worker %s is healthy again: an executor started there",
                  exec->worker->id);
    registry_exec_report (m->reg, exec, &report);
    if (registry_exec_final (state) && m->max_executor_retries >= 0
        && app->retries >= m->max_executor_retries) {
        bool running = false;
        for (reg_exec_t *e = zhashx_first (app->executors); e;
             e = zhashx_next (app->executors))
            running |= e->state == EXEC_RUNNING;
        if (!running) {
            log_warn ("application %s failed: %d executor failures in a row",
                      app->id, app->retries);
            registry_app_end (m->reg, app, APP_FAILED,
                              "too many executor failures",
                              master_kill_executor, m);
        }
    }
}

bool
master_labels_known (master_t *m, const cJSON *labels)
{
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w; w = zlistx_next (workers))
        if (hearth_labels_carry (w->labels, labels))
            return true;
    return false;
}
