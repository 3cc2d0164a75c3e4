/*  claims.c - claims of application ids the master does not know: the
    owners the workers list, and the claims held until they have had the
    time to; see claims.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/zap.h"
#include "master/authz.h"
#include "master/claims.h"
#include "master/send.h"

/* Claims held at once, at most: more are handled when they arrive (a
   flood of claims must not grow the master without bound). */
static const size_t s_max_held = 4096;
/* Ids the workers listed that the master does not know, at most. */
static const size_t s_max_owners = 1000000;

struct claims {
    zhashx_t *owners; /* app id -> the key a worker listed it for (owned
                         strings), for ids the master does not know */
    zlistx_t *held;   /* claim_held_t *, in arrival order (owned) */
    int64_t until_ms; /* monotonic: claims are held until then */
    bool full_said;   /* "too many held claims" was logged */
};

static void
s_held_destructor (void **item)
{
    claim_held_destroy ((claim_held_t **) item);
}

claims_t *
claims_new (int64_t until_ms)
{
    claims_t *self = calloc (1, sizeof *self);
    if (!self || !(self->owners = zhashx_new ())
        || !(self->held = zlistx_new ())) {
        claims_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->owners, (zhashx_destructor_fn *) zstr_free);
    zhashx_set_duplicator (self->owners, (zhashx_duplicator_fn *) strdup);
    zlistx_set_destructor (self->held, s_held_destructor);
    self->until_ms = until_ms;
    return self;
}

void
claims_destroy (claims_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->owners);
    zlistx_destroy (&(*self_p)->held);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

void
claims_open (claims_t *self, int64_t until_ms)
{
    self->until_ms = until_ms;
}

claim_held_t *
claims_due (claims_t *self, int64_t now_ms)
{
    if (now_ms < self->until_ms || !zlistx_first (self->held))
        return NULL;
    return zlistx_detach_cur (self->held);
}

void
claim_held_destroy (claim_held_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zframe_destroy (&(*self_p)->rid);
    hearth_msg_destroy (&(*self_p)->msg);
    free (*self_p);
    *self_p = NULL;
}

/* The key's name for people: its key file's name, or its start. */
static void
s_key_words (master_t *m, const char *key, char *buf, size_t size)
{
    const char *name = hearth_zap_name (m->curve.zap, key);
    snprintf (buf, size, "%s (%.12s...)", name ? name : "a key", key);
}

void
master_claims_reported (master_t *m, const reg_worker_t *w, const cJSON *apps)
{
    const cJSON *a;
    claims_t *self = m->claims;
    cJSON_ArrayForEach (a, apps)
    {
        const char *app_id = hearth_json_str (a, "app_id");
        const char *owner = hearth_json_str (a, "owner");
        if (!owner || !m->curve.zap)
            continue; /* no keys: no owners */
        const reg_app_t *app = registry_app (m->reg, app_id);
        const char *had =
            app ? app->owner : zhashx_lookup (self->owners, app_id);
        if (had && had[0] && strcmp (had, owner) != 0) {
            char listed[128], known[128];
            s_key_words (m, owner, listed, sizeof listed);
            s_key_words (m, had, known, sizeof known);
            log_warn ("worker %s holds application %s for %s, which the "
                      "master has as %s's: kept as the master has it",
                      w->id, app_id, listed, known);
        }
        else if (!had && zhashx_size (self->owners) < s_max_owners)
            zhashx_insert (self->owners, app_id, (void *) owner);
    }
}

/* An older claim of the same driver (its id, URL and token) that it
   sent again on a fresh socket: dropped, the newer one answers. */
static void
s_drop_older (claims_t *self, const cJSON *b)
{
    const char *token = hearth_json_str (b, "token");
    for (claim_held_t *h = zlistx_first (self->held); h;
         h = zlistx_next (self->held)) {
        const cJSON *o = h->msg->body;
        const char *t = hearth_json_str (o, "token");
        if (strcmp (hearth_json_str (o, "app_id"),
                    hearth_json_str (b, "app_id"))
                == 0
            && strcmp (hearth_json_str (o, "driver_url"),
                       hearth_json_str (b, "driver_url"))
                   == 0
            && (t && token ? hearth_keys_token_eq (t, token) : t == token)) {
            zlistx_delete (self->held, zlistx_cursor (self->held));
            return; /* one at most: each replaces the one before */
        }
    }
}

bool
master_claim_hold (master_t *m, const hearth_from_t *from,
                   const hearth_msg_t *msg)
{
    claims_t *self = m->claims;
    int64_t now = hearth_mono_ms ();
    if (now >= self->until_ms)
        return false;
    if (zlistx_size (self->held) >= s_max_held) {
        if (!self->full_said)
            log_warn ("%zu claims of application ids held: more are handled "
                      "at once, before the workers may have said whose the "
                      "ids are",
                      zlistx_size (self->held));
        self->full_said = true;
        return false;
    }
    claim_held_t *h = calloc (1, sizeof *h);
    if (!h || !(h->rid = zframe_dup (from->rid))
        || !(h->msg = hearth_msg_new (msg->cmd))) {
        claim_held_destroy (&h);
        return false;
    }
    cJSON_Delete (h->msg->body);
    if (!(h->msg->body = cJSON_Duplicate (msg->body, 1))) {
        claim_held_destroy (&h);
        return false;
    }
    snprintf (h->key, sizeof h->key, "%s", from->key);
    s_drop_older (self, msg->body);
    zlistx_add_end (self->held, h);
    log_info ("REGISTER_APPLICATION under %s held for %lld ms: the workers "
              "that hold applications register again first",
              hearth_json_str (msg->body, "app_id"),
              (long long) (self->until_ms - now));
    return true;
}

bool
master_claim_allowed (master_t *m, zframe_t *rid, const char *app_id,
                      const char *owner)
{
    const char *had = zhashx_lookup (m->claims->owners, app_id);
    if (!m->curve.zap || !had || strcmp (had, owner) == 0)
        return true;
    char sender[128], holder[128], text[500];
    s_key_words (m, owner, sender, sizeof sender);
    s_key_words (m, had, holder, sizeof holder);
    log_warn ("REGISTER_APPLICATION under %s by %s refused: its workers hold "
              "it for %s",
              app_id, sender, holder);
    snprintf (text, sizeof text,
              "application %s belongs to another key: its workers hold its "
              "executors or map outputs for %s; register without an app_id",
              app_id, holder);
    master_reject (m, rid, "duplicate_app", text, "REGISTER_APPLICATION");
    return false;
}

void
master_claim_taken (master_t *m, const char *app_id)
{
    zhashx_delete (m->claims->owners, app_id);
}
