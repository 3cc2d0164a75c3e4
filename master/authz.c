/*  authz.c - who may send each command to hearth-master: the table, and
    the checks that read it; see authz.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/log.h"
#include "libcore/refusals.h"
#include "libcore/zap.h"
#include "master/authz.h"
#include "master/send.h"

/* Every key role: what a command anyone admitted may send needs. */
#define S_ANYONE                                                               \
    (MASTER_MAY_OPERATOR | MASTER_MAY_CLIENT | MASTER_MAY_WORKER               \
     | MASTER_MAY_MASTER | MASTER_MAY_DRIVER)
/* What only the workers' links send (their own records' news). */
#define S_WORKER MASTER_MAY_WORKER

/* The authorization table: one row for every command the master takes
   (test_authz checks it against handlers.c's table, and test-authz walks
   it on a keyed master for every role).  Each row says who may send the
   command; docs/security.md's "Who may do what" is this table in words. */
static const struct {
    hearth_cmd_t cmd;     /* what arrives */
    unsigned who;         /* master_may_t: who may send it */
    hearth_cmd_t refusal; /* the answer to a refused sender: ERROR
                             not_allowed, or this command with the reason */
} s_rules[] = {
    /* the links' own traffic: a worker's about itself (the master knows
       which by the link), a driver's about its application */
    {HEARTH_CMD_HEARTBEAT,
     MASTER_MAY_CLIENT | MASTER_MAY_WORKER | MASTER_MAY_DRIVER,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_REGISTER_WORKER, S_WORKER, HEARTH_CMD_REGISTER_WORKER_FAILED},
    {HEARTH_CMD_EXECUTOR_STATE_CHANGED, S_WORKER, HEARTH_CMD_ERROR},
    {HEARTH_CMD_DRIVER_STATE_CHANGED, S_WORKER, HEARTH_CMD_ERROR},
    {HEARTH_CMD_DRIVER_LOG_RESPONSE, S_WORKER, HEARTH_CMD_ERROR},
    {HEARTH_CMD_WORKER_STOPPING, S_WORKER, HEARTH_CMD_ERROR},
    {HEARTH_CMD_WORKER_DECOMMISSIONING, S_WORKER, HEARTH_CMD_ERROR},
    {HEARTH_CMD_REGISTER_APPLICATION, MASTER_MAY_CLIENT | MASTER_MAY_SELF,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_APPLICATION_PROGRESS, MASTER_MAY_SELF, HEARTH_CMD_ERROR},
    {HEARTH_CMD_OUTPUTS_RECORDED, MASTER_MAY_SELF, HEARTH_CMD_ERROR},
    {HEARTH_CMD_KILL_EXECUTOR, MASTER_MAY_SELF, HEARTH_CMD_ERROR},
    {HEARTH_CMD_REQUEST_EXECUTORS, MASTER_MAY_SELF, HEARTH_CMD_ERROR},
    {HEARTH_CMD_KILL_EXECUTORS, MASTER_MAY_SELF, HEARTH_CMD_ERROR},
    /* users: run, end their own, read */
    {HEARTH_CMD_SUBMIT_DRIVER, MASTER_MAY_CLIENT, HEARTH_CMD_ERROR},
    {HEARTH_CMD_UNREGISTER_APPLICATION,
     MASTER_MAY_OPERATOR | MASTER_MAY_OWNER | MASTER_MAY_SELF,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_KILL_APPLICATION, MASTER_MAY_OPERATOR | MASTER_MAY_OWNER,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_KILL_DRIVER, MASTER_MAY_OPERATOR | MASTER_MAY_OWNER,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_MASTER_STATE, S_ANYONE, HEARTH_CMD_ERROR},
    {HEARTH_CMD_DRIVER_STATUS, S_ANYONE, HEARTH_CMD_ERROR},
    /* a driver's output is its user's, as its files are (0600) */
    {HEARTH_CMD_DRIVER_LOG, MASTER_MAY_OPERATOR | MASTER_MAY_OWNER,
     HEARTH_CMD_ERROR},
    {HEARTH_CMD_ERROR, S_ANYONE, HEARTH_CMD_ERROR},
    /* operators: the whole cluster */
    {HEARTH_CMD_DRAIN_WORKER, MASTER_MAY_OPERATOR, HEARTH_CMD_ERROR},
    {HEARTH_CMD_RESUME_WORKER, MASTER_MAY_OPERATOR, HEARTH_CMD_ERROR},
    {HEARTH_CMD_DECOMMISSION_WORKER, MASTER_MAY_OPERATOR, HEARTH_CMD_ERROR},
    /* standby masters */
    {HEARTH_CMD_FOLLOW_JOURNAL, MASTER_MAY_MASTER, HEARTH_CMD_ERROR},
};

/* The words of the table's senders, in master_may_t's order. */
static const char *const s_may_words[] = {
    "operator", "client", "worker", "master", "driver", "owner", "self"};

/* cmd's row of the table's `who`, or 0: no one may send it. */
static unsigned
s_who (hearth_cmd_t cmd, hearth_cmd_t *refusal)
{
    for (size_t i = 0; i < sizeof s_rules / sizeof s_rules[0]; i++)
        if (s_rules[i].cmd == cmd) {
            *refusal = s_rules[i].refusal;
            return s_rules[i].who;
        }
    *refusal = HEARTH_CMD_ERROR;
    return 0;
}

void
master_authz_print (FILE *out)
{
    for (size_t i = 0; i < sizeof s_rules / sizeof s_rules[0]; i++) {
        fprintf (out, "%s", hearth_cmd_name (s_rules[i].cmd));
        for (size_t b = 0; b < sizeof s_may_words / sizeof *s_may_words; b++)
            if (s_rules[i].who & (1u << b))
                fprintf (out, " %s", s_may_words[b]);
        fputc ('\n', out);
    }
}

/* The roles (HEARTH_ROLE_*) of the sender's key: every one without
   CURVE. */
static unsigned
s_roles (master_t *m, const char *key)
{
    if (!m->curve.zap)
        return HEARTH_ROLE_ALL | HEARTH_ROLE_MASTER;
    return hearth_zap_roles (m->curve.zap, key);
}

/* The key roles (HEARTH_ROLE_*) a row's who admits. */
static unsigned
s_roles_of (unsigned who)
{
    return (who & MASTER_MAY_OPERATOR ? HEARTH_ROLE_OPERATOR : 0)
           | (who & MASTER_MAY_CLIENT ? HEARTH_ROLE_CLIENT : 0)
           | (who & MASTER_MAY_WORKER ? HEARTH_ROLE_WORKER : 0)
           | (who & MASTER_MAY_MASTER ? HEARTH_ROLE_MASTER : 0)
           | (who & MASTER_MAY_DRIVER ? HEARTH_ROLE_DRIVER : 0);
}

/* A key for people: its key file's name, and the key. */
static void
s_words_of_key (master_t *m, const char *key, char *buf, size_t size)
{
    const char *name =
        m->curve.zap ? hearth_zap_name (m->curve.zap, key) : NULL;
    snprintf (buf, size, "%s (%.12s...)", name ? name : "unknown", key);
}

/* What roles make a key, in words. */
static const char *
s_role_words (unsigned roles)
{
    if (roles == HEARTH_ROLE_MASTER)
        return "the masters' key";
    if (roles == HEARTH_ROLE_DRIVER)
        return "a cluster-mode driver's key";
    switch (roles & HEARTH_ROLE_ALL) {
    case HEARTH_ROLE_CLIENT:
        return "a client key";
    case HEARTH_ROLE_WORKER:
        return "a worker key";
    case HEARTH_ROLE_CLIENT | HEARTH_ROLE_OPERATOR:
    case HEARTH_ROLE_OPERATOR:
        return "an operator key";
    case 0:
        return "a key with no role";
    default:
        return "a key of several roles";
    }
}

/* Who a row admits, in words: "a client key (--curve-allow or
   --curve-operators), or the driver of the application it names...". */
static void
s_needs (unsigned who, char *buf, size_t size)
{
    static const char *const needs[] = {
        "an operator key (--curve-operators)",
        "a client key (--curve-allow or --curve-operators)",
        "a worker key (--curve-allow-workers)",
        "the masters' key (the --curve-secret every master of the cluster "
        "runs with)",
        "a cluster-mode driver's own key",
        "the key that submitted what it names",
        "the driver of the application it names (on its own link, or the "
        "cluster-mode driver it names, with its own key)"};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t b = 0; b < sizeof needs / sizeof *needs && used < size; b++)
        if (who & (1u << b))
            used += (size_t) snprintf (buf + used, size - used, "%s%s",
                                       used ? ", or " : "", needs[b]);
    if (!buf[0])
        snprintf (buf, size, "nothing: no one may send it");
}

/* Answer a refused sender of cmd with why, and log it (once a minute per
   key and command).  Returns false, for the checks to return. */
static bool
s_refuse (master_t *m, const hearth_from_t *from, hearth_cmd_t cmd,
          hearth_cmd_t refusal, const char *why)
{
    const char *name = hearth_cmd_name (cmd);
    char text[700];
    snprintf (text, sizeof text, "%s: %s", name, why);
    if (m->denials)
        hearth_refusals_log (m->denials, from->key, name, text);
    if (refusal == HEARTH_CMD_ERROR)
        master_reject (m, from->rid, "not_allowed", why, name);
    else
        master_send_reason (m, from->rid, refusal, why);
    return false;
}

/* The refusal of a key the row does not admit by role. */
static bool
s_refuse_key (master_t *m, const hearth_from_t *from, hearth_cmd_t cmd,
              unsigned who, hearth_cmd_t refusal)
{
    char key[128], needs[400], why[600];
    s_needs (who, needs, sizeof needs);
    if (!m->curve.zap) /* no keys: what it lacks is the record's link */
        snprintf (why, sizeof why, "%s needs %s", hearth_cmd_name (cmd), needs);
    else {
        s_words_of_key (m, from->key, key, sizeof key);
        snprintf (why, sizeof why, "the key %s is %s: %s needs %s", key,
                  s_role_words (s_roles (m, from->key)), hearth_cmd_name (cmd),
                  needs);
    }
    return s_refuse (m, from, cmd, refusal, why);
}

bool
master_authorize (master_t *m, const hearth_from_t *from, hearth_cmd_t cmd)
{
    hearth_cmd_t refusal;
    unsigned who = s_who (cmd, &refusal);
    if ((s_roles (m, from->key) & s_roles_of (who))
        || (who & MASTER_MAY_RELATIONS))
        return true;
    return s_refuse_key (m, from, cmd, who, refusal);
}

bool
master_authorize_on (master_t *m, const hearth_from_t *from, hearth_cmd_t cmd,
                     const master_subject_t *s)
{
    hearth_cmd_t refusal;
    unsigned who = s_who (cmd, &refusal);
    bool owner =
        s->owner && (!m->curve.zap || strcmp (s->owner, from->key) == 0);
    if ((s_roles (m, from->key) & s_roles_of (who))
        || ((who & MASTER_MAY_OWNER) && owner)
        || ((who & MASTER_MAY_SELF) && s->self))
        return true;
    if (!(who & MASTER_MAY_OWNER))
        return s_refuse_key (m, from, cmd, who, refusal);
    char key[128], why[700];
    s_words_of_key (m, from->key, key, sizeof key);
    snprintf (why, sizeof why,
              "%s belongs to another key: only its owner or an operator key "
              "(--curve-operators) may %s%s, and %s is %s",
              s->what, s->may ? s->may : "end it",
              who & MASTER_MAY_SELF ? " (or its driver)" : "", key,
              s_role_words (s_roles (m, from->key)));
    return s_refuse (m, from, cmd, refusal, why);
}

bool
master_sender_is_driver (master_t *m, const char *key, const reg_driver_t *d)
{
    if (registry_driver_final (d->state) || !d->worker)
        return false;
    if (!m->curve.zap)
        return true;
    return d->key[0] && strcmp (d->key, key) == 0;
}

reg_worker_key_t
master_worker_key (master_t *m, const char *key, const reg_worker_t *w)
{
    bool admitted =
        m->curve.zap && w->curve_key[0]
        && (hearth_zap_roles (m->curve.zap, w->curve_key) & HEARTH_ROLE_WORKER);
    return registry_worker_key (w, key, admitted);
}

bool
master_authorize_worker (master_t *m, const hearth_from_t *from,
                         const reg_worker_t *w)
{
    char key[128], kept[128], why[1024];
    reg_worker_key_t verdict = master_worker_key (m, from->key, w);
    if (verdict == REG_KEY_SAME)
        return true;
    s_words_of_key (m, from->key, key, sizeof key);
    s_words_of_key (m, w->curve_key, kept, sizeof kept);
    if (verdict == REG_KEY_FIRST) {
        log_info ("worker %s: its record holds no key (a journal of an "
                  "older master, or one without keys): its id now belongs "
                  "to the key %s",
                  w->id, key);
        return true;
    }
    if (verdict == REG_KEY_NEW) {
        log_info ("worker %s registers with a new key, %s: its former key "
                  "(%.12s...) is no longer a worker key, so its id moves to "
                  "the new one",
                  w->id, key, w->curve_key);
        return true;
    }
    snprintf (why, sizeof why,
              "worker id %s belongs to the key %s, which is still a worker "
              "key; the key %s may not register under it: give this worker "
              "its own --id, or, if it changed keys, remove its former key "
              "from --curve-allow-workers and SIGHUP the master",
              w->id, kept, key);
    return s_refuse (m, from, HEARTH_CMD_REGISTER_WORKER,
                     HEARTH_CMD_REGISTER_WORKER_FAILED, why);
}
