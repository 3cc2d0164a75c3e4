/*  jstate.c - journal records and the state they rebuild; see jstate.h. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/jsonprint.h"
#include "master/jstate.h"

/* In front of the JSON: "CCCCCCCC LLLLLLLL " (version 2: the CRC, then
   the JSON's length); version 1 wrote "CCCCCCCC " only. */
enum {
    s_hex_chars = 8,
    s_v1_prefix = s_hex_chars + 1,
    s_prefix = 2 * (s_hex_chars + 1)
};
/* The largest JSON text a length field can say. */
static const size_t s_max_json = 0xffffffffu;

/* One kind of record: the objects in replay order, and an index. */
typedef struct {
    cJSON *order;    /* key -> record, in replay order (owned) */
    zhashx_t *index; /* key -> the cJSON item in order (borrowed) */
} s_kind_t;

struct jstate {
    s_kind_t workers; /* by id */
    s_kind_t apps;    /* by id; final ones moved to the end as they end */
    s_kind_t execs;   /* by "APP_ID/EXEC_ID" */
    s_kind_t drivers; /* by id */
    s_kind_t outs;    /* by application id: an array of its "outs"
                         records, in the order written */
};

/* --- CRC-32 ------------------------------------------------------------ */

uint32_t
jstate_crc32 (const void *data, size_t len)
{
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    const unsigned char *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

/* --- lines ------------------------------------------------------------- */

char *
jstate_encode (const cJSON *record, size_t *len)
{
    /* byte for byte cJSON_PrintUnformatted's text, without its sscanf a
       number (libcore/jsonprint.h): an outputs batch is thousands */
    hearth_jsonbuf_t buf;
    const char *json = hearth_json_print (record, &buf, NULL, 0);
    if (!json)
        return NULL;
    size_t n = buf.len;
    char *line = n <= s_max_json ? malloc (s_prefix + n + 2) : NULL;
    if (line) {
        char head[s_prefix + 1];
        snprintf (head, sizeof head, "%08x %08x ", 0u, (unsigned) n);
        memcpy (line, head, s_prefix);
        memcpy (line + s_prefix, json, n);
        line[s_prefix + n] = '\n';
        line[s_prefix + n + 1] = '\0';
        /* the CRC covers the length and the JSON */
        uint32_t crc =
            jstate_crc32 (line + s_v1_prefix, s_prefix + n - s_v1_prefix);
        snprintf (head, sizeof head, "%08x", crc);
        memcpy (line, head, s_hex_chars);
        *len = s_prefix + n + 1;
    }
    hearth_jsonbuf_release (&buf);
    return line;
}

/* A lower-case hex digit's value, or -1 (the writer writes lower case:
   anything else is damage). */
static int
s_hex (char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

/* "XXXXXXXX " at p, of which avail bytes exist: 1 when whole (*v its
   value), 0 when what exists fits but is cut short, -1 when it does not
   fit. */
static int
s_hex_field (const char *p, size_t avail, uint32_t *v)
{
    *v = 0;
    for (size_t i = 0; i < s_hex_chars + 1; i++) {
        if (i == avail)
            return 0;
        int d = i < s_hex_chars ? s_hex (p[i]) : p[i] == ' ' ? 0 : -1;
        if (d < 0)
            return -1;
        *v = i < s_hex_chars ? *v << 4 | (uint32_t) d : *v;
    }
    return 1;
}

/* The bytes of a bad line: up to its newline, or all. */
static size_t
s_line_bytes (const char *buf, size_t len)
{
    const char *nl = memchr (buf, '\n', len);
    return nl ? (size_t) (nl - buf) + 1 : len;
}

/* Where the JSON of the record at buf is: JREC_OK with its offset and
   length and *used the record's bytes, once its CRC matched; JREC_TORN
   when buf ends before the record does; JREC_CRC otherwise. */
static jrec_status_t
s_frame (const char *buf, size_t len, size_t *at, size_t *n, size_t *used)
{
    uint32_t crc, jlen;
    *used = len;
    int crc_field = s_hex_field (buf, len, &crc);
    if (crc_field < 0)
        return JREC_CRC;
    if (crc_field == 0)
        return JREC_TORN;
    /* version 2 when a length field follows (a JSON object cannot look
       like one) */
    int len_field = s_hex_field (buf + s_v1_prefix, len - s_v1_prefix, &jlen);
    if (len_field == 0 || (len_field > 0 && len - s_prefix <= jlen))
        return JREC_TORN; /* its end is not there yet */
    if (len_field > 0) {
        if (buf[s_prefix + jlen] != '\n'
            || jstate_crc32 (buf + s_v1_prefix, s_prefix - s_v1_prefix + jlen)
                   != crc)
            return JREC_CRC;
        *at = s_prefix;
        *n = jlen;
        *used = s_prefix + jlen + 1;
        return JREC_OK;
    }
    /* version 1: the CRC of the JSON, up to the newline */
    const char *nl = memchr (buf, '\n', len);
    if (!nl)
        return JREC_TORN;
    *at = s_v1_prefix;
    *used = (size_t) (nl - buf) + 1;
    *n = *used - 1 - s_v1_prefix;
    return jstate_crc32 (buf + *at, *n) == crc ? JREC_OK : JREC_CRC;
}

static bool
s_blank (const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return false;
    return true;
}

jrec_status_t
jstate_decode (const char *buf, size_t len, size_t *used, cJSON **record)
{
    size_t at = 0, n = 0;
    *record = NULL;
    jrec_status_t st = s_frame (buf, len, &at, &n, used);
    if (st == JREC_CRC)
        *used = s_line_bytes (buf, len);
    if (st != JREC_OK)
        return st;
    const char *end = NULL;
    cJSON *json = cJSON_ParseWithLengthOpts (buf + at, n, &end, false);
    if (!json || !cJSON_IsObject (json) || !end
        || !s_blank (end, buf + at + n)) {
        cJSON_Delete (json);
        return JREC_JSON;
    }
    if (!cJSON_IsString (cJSON_GetObjectItemCaseSensitive (json, "t"))) {
        cJSON_Delete (json);
        return JREC_TYPE;
    }
    *record = json;
    return JREC_OK;
}

const char *
jstate_status_text (jrec_status_t status)
{
    switch (status) {
    case JREC_OK:
        return "good";
    case JREC_TORN:
        return "torn write (no end of line)";
    case JREC_CRC:
        return "CRC mismatch";
    case JREC_JSON:
        return "not a JSON object";
    case JREC_TYPE:
        return "no record type or key";
    case JREC_ORDER:
        return "record out of order";
    }
    return "?";
}

/* --- the state --------------------------------------------------------- */

static int
s_kind_init (s_kind_t *k)
{
    k->order = cJSON_CreateObject ();
    k->index = zhashx_new ();
    return k->order && k->index ? 0 : -1;
}

static void
s_kind_clear (s_kind_t *k)
{
    cJSON_Delete (k->order);
    zhashx_destroy (&k->index);
}

jstate_t *
jstate_new (void)
{
    jstate_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    if (s_kind_init (&self->workers) < 0 || s_kind_init (&self->apps) < 0
        || s_kind_init (&self->execs) < 0 || s_kind_init (&self->drivers) < 0
        || s_kind_init (&self->outs) < 0)
        jstate_destroy (&self);
    return self;
}

void
jstate_destroy (jstate_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    jstate_t *self = *self_p;
    s_kind_clear (&self->workers);
    s_kind_clear (&self->apps);
    s_kind_clear (&self->execs);
    s_kind_clear (&self->drivers);
    s_kind_clear (&self->outs);
    free (self);
    *self_p = NULL;
    errno = saved;
}

static void
s_remove (s_kind_t *k, const char *key)
{
    cJSON *old = zhashx_lookup (k->index, key);
    if (!old)
        return;
    zhashx_delete (k->index, key);
    cJSON_Delete (cJSON_DetachItemViaPointer (k->order, old));
}

/* Insert or replace the record under key; to_end moves an existing one to
   the end.  0 or -1 (no memory). */
static int
s_upsert (s_kind_t *k, const char *key, const cJSON *record, bool to_end)
{
    cJSON *copy = cJSON_Duplicate (record, true);
    if (!copy)
        return -1;
    cJSON *old = zhashx_lookup (k->index, key);
    if (old && !to_end) {
        /* cJSON_ReplaceItemViaPointer keeps the position, not the key. */
        cJSON_free (copy->string);
        copy->string = strdup (key);
        if (!copy->string) {
            cJSON_Delete (copy);
            return -1;
        }
        cJSON_ReplaceItemViaPointer (k->order, old, copy);
    }
    else {
        if (old)
            s_remove (k, key);
        if (!cJSON_AddItemToObject (k->order, key, copy)) {
            cJSON_Delete (copy);
            return -1;
        }
    }
    zhashx_update (k->index, key, copy);
    return 0;
}

static bool
s_app_final (const char *state)
{
    return state
           && (strcmp (state, "FINISHED") == 0 || strcmp (state, "FAILED") == 0
               || strcmp (state, "KILLED") == 0);
}

static bool
s_exec_final (const char *state)
{
    return state
           && (strcmp (state, "EXITED") == 0 || strcmp (state, "KILLED") == 0
               || strcmp (state, "FAILED") == 0 || strcmp (state, "LOST") == 0);
}

static const char *
s_str (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsString (v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* "APP_ID/EXEC_ID" of an exec record into key; -1 if it has no valid
   key fields. */
static int
s_exec_key (const cJSON *r, char *key, size_t size)
{
    const char *app = s_str (r, "app_id");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive (r, "exec_id");
    if (!app || !cJSON_IsNumber (id) || id->valuedouble < 0
        || id->valuedouble > INT_MAX
        || id->valuedouble != (double) (int) id->valuedouble)
        return -1;
    int n = snprintf (key, size, "%s/%d", app, (int) id->valuedouble);
    return n > 0 && (size_t) n < size ? 0 : -1;
}

static int
s_apply_app (jstate_t *self, const cJSON *r, const char *id)
{
    const cJSON *old = zhashx_lookup (self->apps.index, id);
    bool final = s_app_final (s_str (r, "state"));
    bool ends = final && !(old && s_app_final (s_str (old, "state")));
    if (final) /* nothing to resume: its outputs go */
        s_remove (&self->outs, id);
    return s_upsert (&self->apps, id, r, ends);
}

/* An "outs" record: appended to its application's list. */
static int
s_apply_outs (jstate_t *self, const cJSON *r)
{
    const char *app = s_str (r, "app_id");
    if (!app
        || !cJSON_IsArray (cJSON_GetObjectItemCaseSensitive (r, "outputs")))
        return -1;
    cJSON *list = zhashx_lookup (self->outs.index, app);
    if (!list) {
        if (!(list = cJSON_CreateArray ()))
            return -1;
        if (!cJSON_AddItemToObject (self->outs.order, app, list)) {
            cJSON_Delete (list);
            return -1;
        }
        zhashx_update (self->outs.index, app, list);
    }
    cJSON *copy = cJSON_Duplicate (r, true);
    if (!copy || !cJSON_AddItemToArray (list, copy)) {
        cJSON_Delete (copy);
        return -1;
    }
    return 1;
}

int
jstate_apply (jstate_t *self, const cJSON *record)
{
    const char *t = s_str (record, "t");
    const char *id = s_str (record, "id");
    char key[512];
    if (!t)
        return -1;
    if (strcmp (t, "outs") == 0)
        return s_apply_outs (self, record);
    if (strcmp (t, "exec") == 0) {
        if (s_exec_key (record, key, sizeof key) < 0)
            return -1;
        if (s_exec_final (s_str (record, "state"))) {
            s_remove (&self->execs, key);
            return 1;
        }
        return s_upsert (&self->execs, key, record, false) < 0 ? -1 : 1;
    }
    s_kind_t *kind = strncmp (t, "worker", 6) == 0   ? &self->workers
                     : strncmp (t, "app", 3) == 0    ? &self->apps
                     : strncmp (t, "driver", 6) == 0 ? &self->drivers
                                                     : NULL;
    const char *rest = !kind                    ? NULL
                       : kind == &self->workers ? t + 6
                       : kind == &self->apps    ? t + 3
                                                : t + 6;
    if (!kind || (strcmp (rest, "") != 0 && strcmp (rest, "-") != 0))
        return 0; /* a header, an end, or a type from a newer master */
    if (!id)
        return -1;
    if (strcmp (rest, "-") == 0) {
        s_remove (kind, id);
        if (kind == &self->apps)
            s_remove (&self->outs, id);
        return 1;
    }
    int rc = kind == &self->apps ? s_apply_app (self, record, id)
                                 : s_upsert (kind, id, record, false);
    return rc < 0 ? -1 : 1;
}

static bool
s_known (const char *t)
{
    static const char *const types[] = {"journal", "snapshot", "end",  "worker",
                                        "worker-", "app",      "app-", "exec",
                                        "driver",  "driver-",  "outs", NULL};
    for (int i = 0; types[i]; i++)
        if (strcmp (t, types[i]) == 0)
            return true;
    return false;
}

/* Headers and the end: where they may appear.  JREC_OK or JREC_ORDER. */
static jrec_status_t
s_check_order (const cJSON *r, const char *t, jload_t *rep)
{
    bool header = strcmp (t, "journal") == 0 || strcmp (t, "snapshot") == 0;
    if (rep->ended)
        return JREC_ORDER; /* nothing after the end */
    if (header && rep->records > 0)
        return JREC_ORDER;
    if (header) {
        rep->header = strcmp (t, "journal") == 0 ? "journal" : "snapshot";
        const cJSON *gen = cJSON_GetObjectItemCaseSensitive (r, "gen");
        rep->gen = cJSON_IsNumber (gen) && gen->valuedouble >= 0
                           && gen->valuedouble < 9.0e15
                       ? (int64_t) gen->valuedouble
                       : -1;
    }
    if (strcmp (t, "end") == 0)
        rep->ended = true;
    return JREC_OK;
}

/* The first offset from `from` on where a record proved whole (its CRC
   matches, over the length it states) starts, or len. */
static size_t
s_resync (const char *buf, size_t from, size_t len)
{
    uint32_t crc;
    for (size_t q = from; q < len; q++) {
        size_t at, n, used;
        if (s_hex (buf[q]) >= 0 && s_hex_field (buf + q, len - q, &crc) > 0
            && s_frame (buf + q, len - q, &at, &n, &used) == JREC_OK)
            return q;
    }
    return len;
}

/* Bytes [pos, end) are skipped for status st. */
static void
s_skip (const char *buf, size_t pos, size_t end, jrec_status_t st, jload_t *rep,
        jstate_skip_fn *on_skip, void *arg)
{
    if (rep->status == JREC_OK) {
        rep->status = st;
        rep->bad_at = pos;
        rep->bad_line = 1;
        for (const char *p = buf;
             (p = memchr (p, '\n', (size_t) (buf + pos - p))); p++)
            rep->bad_line++;
    }
    /* a stretch that starts where the last one ended is the same one */
    if (!rep->skipped || rep->skip_end != pos)
        rep->skipped++;
    rep->skip_end = end;
    rep->bad_bytes += end - pos;
    if (on_skip)
        on_skip (arg, buf + pos, end - pos, st);
}

/* One record proved whole at buf: checked and applied.  JREC_OK, or why
   it is skipped. */
static jrec_status_t
s_load_one (jstate_t *self, cJSON *r, jload_t *rep, bool *applied, bool *known)
{
    const char *t = s_str (r, "t");
    *applied = false;
    *known = t && s_known (t);
    if (!t)
        return JREC_TYPE;
    jrec_status_t st = s_check_order (r, t, rep);
    if (st != JREC_OK)
        return st;
    int rc = jstate_apply (self, r);
    *applied = rc == 1;
    return rc < 0 ? JREC_TYPE : JREC_OK;
}

void
jstate_load_skips (jstate_t *self, const char *buf, size_t len, jload_t *rep,
                   jstate_skip_fn *on_skip, void *arg)
{
    memset (rep, 0, sizeof *rep);
    rep->gen = -1;
    size_t pos = 0;
    while (pos < len) {
        size_t used;
        cJSON *r;
        bool applied = false, known = false;
        jrec_status_t st = jstate_decode (buf + pos, len - pos, &used, &r);
        if (st == JREC_TORN || st == JREC_CRC) {
            /* not proved whole: where it ends is not known either */
            size_t next = s_resync (buf, pos + 1, len);
            s_skip (buf, pos, next, st, rep, on_skip, arg);
            pos = next;
            continue;
        }
        if (st == JREC_OK)
            st = s_load_one (self, r, rep, &applied, &known);
        cJSON_Delete (r);
        if (st != JREC_OK) {
            s_skip (buf, pos, pos + used, st, rep, on_skip, arg);
            pos += used;
            continue;
        }
        rep->records++;
        rep->applied += applied;
        rep->unknown += !known;
        pos += used;
        rep->good_bytes = pos;
    }
    rep->tail_bytes = len - rep->good_bytes;
}

void
jstate_load (jstate_t *self, const char *buf, size_t len, jload_t *rep)
{
    jstate_load_skips (self, buf, len, rep, NULL, NULL);
}

/* --- views ------------------------------------------------------------- */

const cJSON *
jstate_workers (const jstate_t *self)
{
    return self->workers.order;
}

const cJSON *
jstate_apps (const jstate_t *self)
{
    return self->apps.order;
}

const cJSON *
jstate_execs (const jstate_t *self)
{
    return self->execs.order;
}

const cJSON *
jstate_drivers (const jstate_t *self)
{
    return self->drivers.order;
}

const cJSON *
jstate_outputs (const jstate_t *self)
{
    return self->outs.order;
}

bool
jstate_empty (const jstate_t *self)
{
    return !self->workers.order->child && !self->apps.order->child
           && !self->execs.order->child && !self->drivers.order->child;
}
