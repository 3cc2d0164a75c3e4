/*  authz.c - who may do what on hearth-master: the roles of the sender's
    CURVE key and the owners of applications and drivers; see authz.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/log.h"
#include "libcore/refusals.h"
#include "libcore/zap.h"
#include "master/authz.h"

const char *
master_sender_key (const master_t *m)
{
    return m->curve.zap && m->sender_key ? m->sender_key : "";
}

static unsigned
s_roles (master_t *m)
{
    if (!m->curve.zap)
        return HEARTH_ROLE_ALL;
    return hearth_zap_roles (m->curve.zap, master_sender_key (m));
}

/* The sender's key for people: its key file's name, and the key. */
static void
s_who (master_t *m, char *buf, size_t size)
{
    const char *key = master_sender_key (m);
    const char *name = hearth_zap_name (m->curve.zap, key);
    snprintf (buf, size, "%s (%.12s...)", name ? name : "unknown", key);
}

/* What roles make a key, in words. */
static const char *
s_role_words (unsigned roles)
{
    if (roles == HEARTH_ROLE_MASTER)
        return "the masters' key";
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

/* What a role asks for, and where such keys are given. */
static const char *
s_needs (unsigned roles)
{
    if (roles & HEARTH_ROLE_MASTER)
        return "the masters' key (the --curve-secret every master of the "
               "cluster runs with)";
    if (roles & HEARTH_ROLE_OPERATOR)
        return "an operator key (--curve-operators)";
    if (roles & HEARTH_ROLE_WORKER)
        return "a worker key (--curve-allow-workers)";
    return "a client key (--curve-allow or --curve-operators)";
}

/* Log a refusal of the sender (once a minute per key and command). */
static void
s_denied (master_t *m, const char *command, const char *why)
{
    char text[600];
    snprintf (text, sizeof text, "%s: %s", command, why);
    if (m->denials)
        hearth_refusals_log (m->denials, master_sender_key (m), command, text);
}

bool
master_sender_has (master_t *m, unsigned roles, const char *command, char *why,
                   size_t size)
{
    unsigned have = s_roles (m);
    if ((have & roles) == roles)
        return true;
    char who[128];
    s_who (m, who, sizeof who);
    snprintf (why, size, "the key %s is %s: %s needs %s", who,
              s_role_words (have), command, s_needs (roles & ~have));
    s_denied (m, command, why);
    return false;
}

bool
master_may_operate (master_t *m, const char *command, char *why, size_t size)
{
    if (s_roles (m) & HEARTH_ROLE_OPERATOR)
        return true;
    if (why)
        master_sender_has (m, HEARTH_ROLE_OPERATOR, command, why, size);
    return false;
}

bool
master_may_act_on (master_t *m, const char *owner, const char *what,
                   const char *command, char *why, size_t size)
{
    if (!m->curve.zap || strcmp (owner, master_sender_key (m)) == 0
        || master_may_operate (m, command, NULL, 0))
        return true;
    char who[128];
    s_who (m, who, sizeof who);
    snprintf (why, size,
              "%s belongs to another key: only its owner or an operator key "
              "(--curve-operators) may end it, and %s is %s",
              what, who, s_role_words (s_roles (m)));
    s_denied (m, command, why);
    return false;
}

bool
master_may_end_app (master_t *m, zframe_t *rid, const reg_app_t *app,
                    const char *command, char *why, size_t size)
{
    void *record;
    char what[HEARTH_ID_MAX + 16];
    if (!m->curve.zap
        || (registry_peer (m->reg, rid, &record) == PEER_APP && record == app)
        || (app->curve_key[0]
            && strcmp (app->curve_key, master_sender_key (m)) == 0))
        return true;
    snprintf (what, sizeof what, "application %s", app->id);
    return master_may_act_on (m, app->owner, what, command, why, size);
}

bool
master_sender_runs (master_t *m, const reg_driver_t *d)
{
    if (registry_driver_final (d->state) || !d->worker)
        return false;
    if (!m->curve.zap)
        return true;
    const char *key = master_sender_key (m);
    if (d->worker->curve_key[0])
        return strcmp (d->worker->curve_key, key) == 0;
    return (hearth_zap_roles (m->curve.zap, key) & HEARTH_ROLE_WORKER) != 0;
}
