/*  packed.c - packing and reading task and update records; see packed.h. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/ids.h"
#include "libcore/packed.h"
#include "libcore/proto.h"

/* The limits of the same fields in JSON (commands.c, docs/protocol.md). */
static const uint64_t s_max_tid = 9007199254740991ull; /* 2^53 - 1 */
static const uint32_t s_max_attempt = HEARTH_TASK_ATTEMPT_MAX;
static const size_t s_max_fn = HEARTH_TASK_FN_MAX;
static const size_t s_max_name = 255;
static const size_t s_max_arg = HEARTH_TASK_ARG_MAX;
static const int s_max_argv = HEARTH_TASK_ARGV_MAX;
static const int s_max_env = HEARTH_TASK_ENV_MAX;
/* An environment entry: a name, '=', a value of at most s_max_arg. */
static const size_t s_max_env_entry =
    HEARTH_TASK_ENV_NAME_MAX + 1 + HEARTH_TASK_ARG_MAX;
static const int64_t s_max_timeout_ms = 31536000000ll;
static const uint32_t s_max_records = 100000;
static const size_t s_max_error = 4096;
static const int32_t s_max_exit = 65535;
static const int32_t s_max_signal = 128;

/* Fixed parts of the frame and the records, in bytes. */
enum {
    S_HEADER = 8,       /* tag, count */
    S_TASK_FIXED = 40,  /* up to the strings */
    S_UPDATE_FIXED = 40 /* up to the error text */
};

static size_t
s_pad8 (size_t n)
{
    return (n + 7) & ~(size_t) 7;
}

/* ---- little-endian fields --------------------------------------------- */

static void
s_put16 (uint8_t *p, uint16_t v)
{
    v = htole16 (v);
    memcpy (p, &v, sizeof v);
}

static void
s_put32 (uint8_t *p, uint32_t v)
{
    v = htole32 (v);
    memcpy (p, &v, sizeof v);
}

static void
s_put64 (uint8_t *p, uint64_t v)
{
    v = htole64 (v);
    memcpy (p, &v, sizeof v);
}

static uint16_t
s_get16 (const uint8_t *p)
{
    uint16_t v;
    memcpy (&v, p, sizeof v);
    return le16toh (v);
}

static uint32_t
s_get32 (const uint8_t *p)
{
    uint32_t v;
    memcpy (&v, p, sizeof v);
    return le32toh (v);
}

static uint64_t
s_get64 (const uint8_t *p)
{
    uint64_t v;
    memcpy (&v, p, sizeof v);
    return le64toh (v);
}

/* ---- writing ------------------------------------------------------------ */

/* Room for size more bytes (zeroed), the header written on first use.
   Returns where they start, or NULL. */
static uint8_t *
s_reserve (hearth_packer_t *self, const char *tag, size_t size)
{
    size_t need = (self->len ? self->len : S_HEADER) + size;
    if (need > self->alloc) {
        size_t n = self->alloc ? self->alloc * 2 : 4096;
        while (n < need)
            n *= 2;
        uint8_t *data = realloc (self->data, n);
        if (!data)
            return NULL;
        self->data = data;
        self->alloc = n;
    }
    if (self->len == 0) {
        memcpy (self->data, tag, 4);
        self->len = S_HEADER;
    }
    uint8_t *p = self->data + self->len;
    memset (p, 0, size);
    return p;
}

static void
s_commit (hearth_packer_t *self, size_t size)
{
    self->len += size;
    self->count++;
    s_put32 (self->data + 4, self->count);
}

/* Copy a string and its NUL; returns the byte after. */
static uint8_t *
s_put_text (uint8_t *p, const char *text, size_t len)
{
    if (len)
        memcpy (p, text, len);
    p[len] = '\0';
    return p + len + 1;
}

static bool s_strings_ok (const char *s, size_t len, int argc, int envc);

int
hearth_packer_add_task (hearth_packer_t *self, const hearth_packed_task_t *t)
{
    size_t fn_len = t->fn ? strlen (t->fn) : 0;
    size_t lib_len = t->lib ? strlen (t->lib) : 0;
    size_t arg_len = t->arg ? strlen (t->arg) : 0;
    bool command = t->argc > 0;
    if (t->tid > s_max_tid || t->attempt < 0
        || (uint32_t) t->attempt > s_max_attempt || t->input < -1
        || t->timeout_ms < 0 || t->timeout_ms > s_max_timeout_ms
        || (command ? fn_len || lib_len || arg_len
                    : fn_len < 1 || t->envc || t->strings_len)
        || fn_len > s_max_fn || lib_len > s_max_name || arg_len > s_max_arg
        || t->argc > s_max_argv || t->envc < 0 || t->envc > s_max_env
        || t->strings_len > UINT32_MAX
        || (command
            && !s_strings_ok (t->strings, t->strings_len, t->argc, t->envc))
        || self->count >= s_max_records)
        return errno = EINVAL, -1;
    size_t size =
        s_pad8 (S_TASK_FIXED + fn_len + lib_len + arg_len + 3 + t->strings_len);
    uint8_t *p = s_reserve (self, HEARTH_PACKED_TASKS, size);
    if (!p)
        return errno = ENOMEM, -1;
    s_put64 (p, t->tid);
    s_put32 (p + 8, (uint32_t) t->attempt);
    s_put32 (p + 12, (uint32_t) t->input);
    s_put64 (p + 16, (uint64_t) t->timeout_ms);
    s_put16 (p + 24, (uint16_t) fn_len);
    s_put16 (p + 26, (uint16_t) lib_len);
    s_put32 (p + 28, (uint32_t) arg_len);
    s_put16 (p + 32, (uint16_t) t->argc);
    s_put16 (p + 34, (uint16_t) t->envc);
    s_put32 (p + 36, (uint32_t) t->strings_len);
    uint8_t *q = s_put_text (p + S_TASK_FIXED, t->fn, fn_len);
    q = s_put_text (q, t->lib, lib_len);
    q = s_put_text (q, t->arg, arg_len);
    if (t->strings_len)
        memcpy (q, t->strings, t->strings_len);
    s_commit (self, size);
    return 0;
}

int
hearth_packer_add_update (hearth_packer_t *self,
                          const hearth_packed_update_t *u)
{
    size_t error_len = u->error ? strnlen (u->error, s_max_error + 1) : 0;
    bool inline_result = u->result_frame < 0 && u->result && u->result_len;
    size_t result_len = inline_result ? u->result_len : 0;
    if (u->tid > s_max_tid || u->attempt < 0
        || (uint32_t) u->attempt > s_max_attempt || u->state < 0
        || (size_t) u->state >= HEARTH_TASK_STATES || u->result_frame < -1
        || error_len > s_max_error || result_len > UINT32_MAX || u->run_us < 0
        || (uint64_t) u->run_us > s_max_tid || self->count >= s_max_records)
        return errno = EINVAL, -1;
    size_t size = s_pad8 (S_UPDATE_FIXED + error_len + 1 + result_len);
    uint8_t *p = s_reserve (self, HEARTH_PACKED_UPDATES, size);
    if (!p)
        return errno = ENOMEM, -1;
    s_put64 (p, u->tid);
    s_put32 (p + 8, (uint32_t) u->attempt);
    p[12] = (uint8_t) u->state;
    p[13] = (uint8_t) u->flags;
    s_put16 (p + 14, (uint16_t) error_len);
    s_put32 (p + 16, (uint32_t) u->exit_status);
    s_put32 (p + 20, (uint32_t) u->signal);
    s_put64 (p + 24, (uint64_t) u->run_us);
    s_put32 (p + 32, (uint32_t) u->result_frame);
    s_put32 (p + 36, (uint32_t) result_len);
    uint8_t *q = s_put_text (p + S_UPDATE_FIXED, u->error, error_len);
    if (result_len)
        memcpy (q, u->result, result_len);
    s_commit (self, size);
    return 0;
}

uint32_t
hearth_packer_count (const hearth_packer_t *self)
{
    return self->count;
}

size_t
hearth_packer_size (const hearth_packer_t *self)
{
    return self->len;
}

zframe_t *
hearth_packer_frame (hearth_packer_t *self)
{
    zframe_t *frame = zframe_new (self->data, self->len);
    self->len = 0;
    self->count = 0;
    return frame;
}

void
hearth_packer_release (hearth_packer_t *self)
{
    free (self->data);
    memset (self, 0, sizeof *self);
}

/* ---- reading ------------------------------------------------------------ */

int
hearth_unpacker_init (hearth_unpacker_t *self, zframe_t *frame, const char *tag,
                      hearth_error_t *err)
{
    const uint8_t *data = frame ? zframe_data (frame) : NULL;
    size_t size = frame ? zframe_size (frame) : 0;
    memset (self, 0, sizeof *self);
    if (size < S_HEADER || memcmp (data, tag, 4) != 0)
        return hearth_errcode (err, "bad_field",
                               "packed frame: expected the tag %s and a "
                               "count",
                               tag);
    uint32_t count = s_get32 (data + 4);
    if (count > s_max_records)
        return hearth_errcode (err, "bad_field",
                               "packed frame: %u records, at most %u",
                               (unsigned) count, (unsigned) s_max_records);
    self->next = data + S_HEADER;
    self->end = data + size;
    self->left = count;
    return 0;
}

/* Exactly argc argv strings (0..s_max_arg bytes, the first at least 1)
   then envc environment entries ("NAME=VALUE": a name of at least one
   byte, a value of at most s_max_arg), each ending with its NUL, in len
   bytes at s. */
static bool
s_strings_ok (const char *s, size_t len, int argc, int envc)
{
    const char *end = s + len;
    for (int i = 0; i < argc + envc; i++) {
        const char *nul = s < end ? memchr (s, '\0', (size_t) (end - s)) : NULL;
        if (!nul)
            return false;
        size_t n = (size_t) (nul - s);
        if (i < argc ? (i == 0 && n < 1) || n > s_max_arg : n > s_max_env_entry)
            return false;
        const char *eq = i < argc ? NULL : memchr (s, '=', n);
        if (i >= argc
            && (!eq || eq == s || n - (size_t) (eq - s) - 1 > s_max_arg))
            return false;
        s = nul + 1;
    }
    return s == end;
}

/* The NUL-terminated string of len bytes at p (the caller checked that
   len + 1 bytes are there), or NULL if it holds a NUL or lacks its own. */
static const char *
s_text (const uint8_t *p, size_t len)
{
    if (p[len] != '\0' || memchr (p, '\0', len))
        return NULL;
    return (const char *) p;
}

static int
s_bad (const hearth_unpacker_t *self, hearth_error_t *err, const char *kind,
       const char *what)
{
    return hearth_errcode (err, "bad_field", "packed %s %u: %s", kind,
                           (unsigned) self->index, what);
}

/* Step past a record of size bytes and its padding (checked there). */
static void
s_advance (hearth_unpacker_t *self, const uint8_t *start, size_t size)
{
    self->next = start + s_pad8 (size);
    self->left--;
    self->index++;
}

int
hearth_unpack_task (hearth_unpacker_t *self, size_t nframes,
                    hearth_packed_task_t *t, hearth_error_t *err)
{
    if (self->left == 0)
        return 0;
    const uint8_t *p = self->next;
    if ((size_t) (self->end - p) < S_TASK_FIXED)
        return s_bad (self, err, "task", "the frame ends inside the record");
    t->tid = s_get64 (p);
    uint32_t attempt = s_get32 (p + 8);
    int32_t input = (int32_t) s_get32 (p + 12);
    uint64_t timeout = s_get64 (p + 16);
    size_t fn_len = s_get16 (p + 24), lib_len = s_get16 (p + 26);
    size_t arg_len = s_get32 (p + 28);
    int argc = s_get16 (p + 32), envc = s_get16 (p + 34);
    size_t strings_len = s_get32 (p + 36);
    if (t->tid > s_max_tid)
        return s_bad (self, err, "task", "tid above 2^53 - 1");
    if (attempt > s_max_attempt)
        return s_bad (self, err, "task", "attempt above 1000");
    if (input < -1 || (input >= 0 && (size_t) input >= nframes))
        return s_bad (self, err, "task", "input is not a binary frame index");
    if (timeout > (uint64_t) s_max_timeout_ms)
        return s_bad (self, err, "task", "timeout_ms above 31536000000");
    if (fn_len > s_max_fn || lib_len > s_max_name || arg_len > s_max_arg
        || argc > s_max_argv || envc > s_max_env)
        return s_bad (self, err, "task", "a string length out of its limits");
    if (argc ? fn_len || lib_len || arg_len : fn_len < 1 || envc || strings_len)
        return s_bad (self, err, "task",
                      "expected exactly one of a function "
                      "and a command");
    size_t size = S_TASK_FIXED + fn_len + lib_len + arg_len + 3 + strings_len;
    if ((size_t) (self->end - p) < s_pad8 (size))
        return s_bad (self, err, "task", "the frame ends inside the record");
    const uint8_t *q = p + S_TASK_FIXED;
    const char *lib = NULL;
    if ((t->fn = s_text (q, fn_len)))
        lib = s_text (q + fn_len + 1, lib_len);
    t->arg = lib ? s_text (q + fn_len + lib_len + 2, arg_len) : NULL;
    if (!t->arg)
        return s_bad (self, err, "task",
                      "a string holds a NUL or lacks its "
                      "own");
    t->strings = (const char *) q + fn_len + lib_len + arg_len + 3;
    if (argc && !s_strings_ok (t->strings, strings_len, argc, envc))
        return s_bad (self, err, "task",
                      "argv and env are not argc and envc "
                      "strings within their limits");
    t->fn = argc ? NULL : t->fn;
    t->argc = argc;
    t->envc = envc;
    t->strings_len = strings_len;
    if (lib_len && !hearth_name_safe (lib))
        return s_bad (self, err, "task", "lib is not a safe file name");
    t->lib = lib_len ? lib : NULL;
    t->attempt = (int) attempt;
    t->input = input;
    t->timeout_ms = (int64_t) timeout;
    s_advance (self, p, size);
    return 1;
}

int
hearth_unpack_update (hearth_unpacker_t *self, size_t nframes,
                      hearth_packed_update_t *u, hearth_error_t *err)
{
    if (self->left == 0)
        return 0;
    const uint8_t *p = self->next;
    if ((size_t) (self->end - p) < S_UPDATE_FIXED)
        return s_bad (self, err, "update", "the frame ends inside the record");
    u->tid = s_get64 (p);
    uint32_t attempt = s_get32 (p + 8);
    u->state = p[12];
    u->flags = p[13];
    size_t error_len = s_get16 (p + 14);
    u->exit_status = (int32_t) s_get32 (p + 16);
    u->signal = (int32_t) s_get32 (p + 20);
    uint64_t run_us = s_get64 (p + 24);
    u->result_frame = (int32_t) s_get32 (p + 32);
    size_t result_len = s_get32 (p + 36);
    if (u->tid > s_max_tid)
        return s_bad (self, err, "update", "tid above 2^53 - 1");
    if (attempt > s_max_attempt)
        return s_bad (self, err, "update", "attempt above 1000");
    if ((size_t) u->state >= HEARTH_TASK_STATES)
        return s_bad (self, err, "update", "state is not a task state");
    if (u->exit_status < -s_max_exit || u->exit_status > s_max_exit
        || u->signal < 0 || u->signal > s_max_signal || run_us > s_max_tid)
        return s_bad (self, err, "update",
                      "exit_status, signal or run_us out of its limits");
    if (u->result_frame < -1
        || (u->result_frame >= 0 && (size_t) u->result_frame >= nframes)
        || (u->result_frame >= 0 && result_len))
        return s_bad (self, err, "update",
                      "result is not a binary frame index");
    if (error_len > s_max_error)
        return s_bad (self, err, "update", "error longer than 4096 bytes");
    size_t size = S_UPDATE_FIXED + error_len + 1 + result_len;
    if ((size_t) (self->end - p) < s_pad8 (size))
        return s_bad (self, err, "update", "the frame ends inside the record");
    const uint8_t *q = p + S_UPDATE_FIXED;
    const char *error = s_text (q, error_len);
    if (!error)
        return s_bad (self, err, "update",
                      "the error text holds a NUL or "
                      "lacks its own");
    q += error_len + 1;
    u->attempt = (int) attempt;
    u->run_us = (int64_t) run_us;
    u->error = error_len ? error : NULL;
    u->result = result_len ? q : NULL;
    u->result_len = result_len;
    s_advance (self, p, size);
    return 1;
}

int
hearth_packed_check (zframe_t *frame, const char *tag, size_t nframes,
                     hearth_error_t *err)
{
    hearth_unpacker_t u;
    if (hearth_unpacker_init (&u, frame, tag, err) < 0)
        return -1;
    bool tasks = strcmp (tag, HEARTH_PACKED_TASKS) == 0;
    for (;;) {
        hearth_packed_task_t t;
        hearth_packed_update_t up;
        int rc = tasks ? hearth_unpack_task (&u, nframes, &t, err)
                       : hearth_unpack_update (&u, nframes, &up, err);
        if (rc <= 0) {
            if (rc < 0)
                return -1;
            break;
        }
    }
    if (u.next != u.end)
        return hearth_errcode (err, "bad_field",
                               "packed frame: %zu bytes after the last record",
                               (size_t) (u.end - u.next));
    return 0;
}
