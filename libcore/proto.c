/*  proto.c - encoding and decoding Hearth messages; see proto.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/jsonprint.h"
#include "libcore/proto.h"

/* Frames before the binary ones: version, command, body. */
static const size_t s_header_frames = 3;
/* Bodies up to this size are printed on the stack. */
enum { s_stack_text = 4096 };

hearth_msg_t *
hearth_msg_new (hearth_cmd_t cmd)
{
    hearth_msg_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->cmd = cmd;
    self->body = cJSON_CreateObject ();
    if (!self->body) {
        free (self);
        return NULL;
    }
    return self;
}

void
hearth_msg_destroy (hearth_msg_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_msg_t *self = *self_p;
    cJSON_Delete (self->body);
    for (size_t i = 0; i < self->nframes; i++)
        if (!self->borrowed || !self->borrowed[i])
            zframe_destroy (&self->frames[i]);
    free (self->frames);
    free (self->borrowed);
    free (self);
    *self_p = NULL;
    errno = saved;
}

static int
s_reserve_frames (hearth_msg_t *self, size_t count)
{
    if (count <= self->frames_alloc)
        return 0;
    size_t n = self->frames_alloc ? self->frames_alloc * 2 : 8;
    while (n < count)
        n *= 2;
    zframe_t **frames = realloc (self->frames, n * sizeof *frames);
    if (!frames)
        return -1;
    self->frames = frames;
    if (self->borrowed) {
        bool *b = realloc (self->borrowed, n * sizeof *b);
        if (!b)
            return -1;
        memset (b + self->frames_alloc, 0,
                (n - self->frames_alloc) * sizeof *b);
        self->borrowed = b;
    }
    self->frames_alloc = n;
    return 0;
}

int
hearth_msg_add_frame (hearth_msg_t *self, zframe_t **frame_p)
{
    if (s_reserve_frames (self, self->nframes + 1) < 0) {
        zframe_destroy (frame_p);
        return -1;
    }
    self->frames[self->nframes] = *frame_p;
    *frame_p = NULL;
    return (int) self->nframes++;
}

int
hearth_msg_add_shared (hearth_msg_t *self, zframe_t *frame)
{
    if (!frame || s_reserve_frames (self, self->nframes + 1) < 0
        || (!self->borrowed
            && !(self->borrowed = calloc (self->frames_alloc, sizeof (bool)))))
        return -1;
    self->frames[self->nframes] = frame;
    self->borrowed[self->nframes] = true;
    return (int) self->nframes++;
}

int
hearth_msg_add_bytes (hearth_msg_t *self, const void *data, size_t size)
{
    zframe_t *frame = zframe_new (data, size);
    if (!frame)
        return -1;
    return hearth_msg_add_frame (self, &frame);
}

zframe_t *
hearth_msg_frame (const hearth_msg_t *self, int64_t i)
{
    if (!self || i < 0 || (size_t) i >= self->nframes)
        return NULL;
    return self->frames[i];
}

uint64_t
hearth_msg_epoch (const hearth_msg_t *self)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive (self->body, "epoch");
    /* the decoder checked it: an integer 1 .. 2^53 - 1 */
    return cJSON_IsNumber (e) && e->valuedouble >= 1 ? (uint64_t) e->valuedouble
                                                     : 0;
}

int
hearth_msg_set_epoch (hearth_msg_t *self, uint64_t epoch)
{
    cJSON_DeleteItemFromObjectCaseSensitive (self->body, "epoch");
    if (epoch == 0)
        return 0;
    return cJSON_AddNumberToObject (self->body, "epoch", (double) epoch) ? 0
                                                                         : -1;
}

int
hearth_msg_check (const hearth_msg_t *self, hearth_error_t *err)
{
    const char *name = hearth_cmd_name (self->cmd);
    if (!name)
        return hearth_errcode (err, "unknown_command", "unknown command %d",
                               (int) self->cmd);
    if (hearth_cmd_check_body (self->cmd, self->body, self->frames,
                               self->nframes, err)
        < 0) {
        if (err) {
            char text[HEARTH_ERROR_TEXT_MAX];
            snprintf (text, sizeof text, "%s", err->text);
            hearth_errcode (err, err->code, "%s: %s", name, text);
        }
        return -1;
    }
    return 0;
}

/* The body's text, printed into buf (from stack) after the schema check.
   NULL with err. */
static const char *
s_body_text (const hearth_msg_t *self, hearth_jsonbuf_t *buf, char *stack,
             size_t size, hearth_error_t *err)
{
    if (hearth_msg_check (self, err) < 0)
        return NULL;
    const char *text = hearth_json_print (self->body, buf, stack, size);
    if (!text)
        hearth_errcode (err, "no_memory", "out of memory encoding %s",
                        hearth_cmd_name (self->cmd));
    else if (buf->len > HEARTH_MAX_BODY_BYTES) { /* the peer would refuse it */
        hearth_errcode (err, "too_large", "%s: body of %zu bytes exceeds %d",
                        hearth_cmd_name (self->cmd), buf->len,
                        HEARTH_MAX_BODY_BYTES);
        hearth_jsonbuf_release (buf);
        return NULL;
    }
    return text;
}

zmsg_t *
hearth_msg_encode (hearth_msg_t **self_p, hearth_error_t *err)
{
    hearth_msg_t *self = *self_p;
    char stack[s_stack_text];
    hearth_jsonbuf_t buf;
    zmsg_t *zmsg = NULL;
    const char *text = s_body_text (self, &buf, stack, sizeof stack, err);
    if (text && (zmsg = zmsg_new ())) {
        zmsg_addstr (zmsg, HEARTH_PROTO_TAG);
        zmsg_addstr (zmsg, hearth_cmd_name (self->cmd));
        zmsg_addmem (zmsg, text, buf.len);
        for (size_t i = 0; i < self->nframes; i++) {
            zframe_t *f = self->frames[i];
            if (self->borrowed && self->borrowed[i])
                f = zframe_dup (f); /* a zmsg owns its frames */
            zmsg_append (zmsg, &f);
        }
        self->nframes = 0;
    }
    if (text)
        hearth_jsonbuf_release (&buf);
    hearth_msg_destroy (self_p);
    return zmsg;
}

/* A message being decoded: its header frames in place, its binary frames
   as zframes. */
typedef struct {
    const uint8_t *data[3]; /* version, command, body */
    size_t size[3];         /* their sizes */
    size_t count;           /* frames in all (header and binary) */
    zframe_t **frames;      /* binary frames (owned), at most MAX + 1 */
    size_t nframes;         /* entries in frames */
} s_parts_t;

/* Copy bytes as printable text, for error messages. */
static const char *
s_printable (const uint8_t *data, size_t n, char *buf, size_t size)
{
    size_t i;
    for (i = 0; i < n && i < size - 1; i++)
        buf[i] = isprint (data[i]) ? (char) data[i] : '?';
    buf[i] = '\0';
    return buf;
}

static int
s_check_version (const uint8_t *data, size_t size, hearth_error_t *err)
{
    char text[32];
    size_t plen = strlen (HEARTH_PROTO_PREFIX);
    if (size < plen || memcmp (data, HEARTH_PROTO_PREFIX, plen) != 0)
        return hearth_errcode (err, "bad_protocol",
                               "not a Hearth message "
                               "(frame 0 must be %s)",
                               HEARTH_PROTO_TAG);
    if (size != strlen (HEARTH_PROTO_TAG)
        || memcmp (data, HEARTH_PROTO_TAG, size) != 0)
        return hearth_errcode (err, "bad_version",
                               "protocol version %s is not supported (this "
                               "peer speaks %s)",
                               s_printable (data, size, text, sizeof text),
                               HEARTH_PROTO_TAG);
    return 0;
}

static cJSON *
s_parse_body (const uint8_t *data, size_t len, hearth_error_t *err)
{
    const char *text = (const char *) data;
    if (len > HEARTH_MAX_BODY_BYTES) {
        hearth_errcode (err, "too_large", "body of %zu bytes exceeds %d", len,
                        HEARTH_MAX_BODY_BYTES);
        return NULL;
    }
    if (!hearth_json_depth_ok (text, len, HEARTH_MAX_DEPTH)) {
        hearth_errcode (err, "too_deep", "body nests deeper than %d levels",
                        HEARTH_MAX_DEPTH);
        return NULL;
    }
    const char *end = NULL;
    cJSON *body = cJSON_ParseWithLengthOpts (text, len, &end, 0);
    while (body && end < text + len && isspace ((unsigned char) *end))
        end++;
    if (!body || end != text + len) {
        cJSON_Delete (body);
        hearth_errcode (err, "bad_json", "body is not valid JSON");
        return NULL;
    }
    if (!cJSON_IsObject (body)) {
        cJSON_Delete (body);
        hearth_errcode (err, "bad_json", "body is not a JSON object");
        return NULL;
    }
    return body;
}

/* Check the three header frames; set *cmd.  Returns 0 or -1 with err. */
static int
s_decode_header (const s_parts_t *p, int *cmd, hearth_error_t *err)
{
    if (p->count < s_header_frames) {
        if (p->count > 0 && s_check_version (p->data[0], p->size[0], err) < 0)
            return -1;
        return hearth_errcode (err, "truncated",
                               "a message has at least 3 frames (version, "
                               "command, body), got %zu",
                               p->count);
    }
    if (p->count - s_header_frames > HEARTH_MAX_FRAMES)
        return hearth_errcode (err, "too_large", "%zu binary frames exceed %d",
                               p->count - s_header_frames, HEARTH_MAX_FRAMES);
    if (s_check_version (p->data[0], p->size[0], err) < 0)
        return -1;
    *cmd = hearth_cmd_lookup ((const char *) p->data[1], p->size[1]);
    if (*cmd < 0) {
        char text[65];
        return hearth_errcode (
            err, "unknown_command", "unknown command '%s'",
            s_printable (p->data[1], p->size[1], text, sizeof text));
    }
    return 0;
}

/* What was read of a message that failed to decode, for refused_p (NULL:
   not wanted): its command, its body or an empty one, no frames. */
static void
s_refused (hearth_msg_t **self_p, hearth_msg_t **refused_p)
{
    hearth_msg_t *self = *self_p;
    if (!refused_p || !self
        || (!self->body && !(self->body = cJSON_CreateObject ()))) {
        hearth_msg_destroy (self_p);
        return;
    }
    for (size_t i = 0; i < self->nframes; i++)
        zframe_destroy (&self->frames[i]);
    self->nframes = 0;
    *refused_p = self;
    *self_p = NULL;
}

/* Decode parts: the message takes the binary frames (p->frames is
   emptied either way); refused_p as hearth_msg_try_recv_refused's. */
static hearth_msg_t *
s_decode (s_parts_t *p, hearth_error_t *err, hearth_msg_t **refused_p)
{
    hearth_msg_t *self = NULL;
    int cmd = -1;
    if (s_decode_header (p, &cmd, err) < 0)
        goto error;
    if (!(self = calloc (1, sizeof *self))) {
        hearth_errcode (err, "no_memory", "out of memory");
        goto error;
    }
    self->cmd = cmd;
    if (!(self->body = s_parse_body (p->data[2], p->size[2], err)))
        goto error;
    self->frames = p->frames;
    self->nframes = self->frames_alloc = p->nframes;
    p->frames = NULL;
    p->nframes = 0;
    if (hearth_msg_check (self, err) < 0)
        goto error;
    return self;
error:
    for (size_t i = 0; i < p->nframes; i++)
        zframe_destroy (&p->frames[i]);
    free (p->frames);
    p->frames = NULL;
    p->nframes = 0;
    s_refused (&self, refused_p);
    return NULL;
}

/* Keep a binary frame (taking it), unless there are already more than the
   decoder accepts (then it is only counted).  Returns 0 or -1. */
static int
s_add_binary (s_parts_t *p, size_t *alloc, zframe_t **frame_p)
{
    if (p->nframes > HEARTH_MAX_FRAMES) {
        zframe_destroy (frame_p);
        return 0;
    }
    if (p->nframes == *alloc) {
        size_t n = *alloc ? *alloc * 2 : 8;
        zframe_t **frames = realloc (p->frames, n * sizeof *frames);
        if (!frames) {
            zframe_destroy (frame_p);
            return -1;
        }
        p->frames = frames;
        *alloc = n;
    }
    p->frames[p->nframes++] = *frame_p;
    *frame_p = NULL;
    return 0;
}

hearth_msg_t *
hearth_msg_decode (zmsg_t **zmsg_p, hearth_error_t *err)
{
    zmsg_t *zmsg = *zmsg_p;
    if (!zmsg) {
        hearth_errcode (err, "truncated", "no message");
        return NULL;
    }
    s_parts_t p = {.count = zmsg_size (zmsg)};
    zframe_t *head[3] = {NULL, NULL, NULL}, *f;
    for (size_t i = 0; i < s_header_frames && (head[i] = zmsg_pop (zmsg));
         i++) {
        p.data[i] = zframe_data (head[i]);
        p.size[i] = zframe_size (head[i]);
    }
    size_t alloc = 0;
    bool ok = true;
    while (ok && (f = zmsg_pop (zmsg)))
        ok = s_add_binary (&p, &alloc, &f) == 0;
    hearth_msg_t *self = NULL;
    if (ok)
        self = s_decode (&p, err, NULL);
    else {
        hearth_errcode (err, "no_memory", "out of memory");
        for (size_t i = 0; i < p.nframes; i++)
            zframe_destroy (&p.frames[i]);
        free (p.frames);
    }
    for (size_t i = 0; i < s_header_frames; i++)
        zframe_destroy (&head[i]);
    zmsg_destroy (zmsg_p);
    return self;
}

static void
s_free_text (void *data, void *hint)
{
    (void) hint;
    free (data);
}

/* Send the body frame: copied when it was printed on the stack, else its
   heap buffer is handed to ZeroMQ (no copy of a MASTER_STATE_RESPONSE's
   megabytes; ZeroMQ frees it once sent). */
static int
s_send_body (void *handle, hearth_jsonbuf_t *buf, int flags)
{
    if (!buf->heap)
        return zmq_send (handle, buf->data, buf->len, flags);
    zmq_msg_t msg;
    if (zmq_msg_init_data (&msg, buf->heap, buf->len, s_free_text, NULL) < 0)
        return -1;
    buf->heap = NULL; /* the message's now */
    if (zmq_msg_send (&msg, handle, flags) < 0) {
        int saved = errno;
        zmq_msg_close (&msg);
        errno = saved;
        return -1;
    }
    return 0;
}

int
hearth_msg_send (hearth_msg_t **self_p, zsock_t *sock, zframe_t *routing_id,
                 hearth_error_t *err)
{
    hearth_msg_t *self = *self_p;
    const char *name = hearth_cmd_name (self->cmd);
    char stack[s_stack_text];
    hearth_jsonbuf_t buf;
    int rc = -1;
    const char *text = s_body_text (self, &buf, stack, sizeof stack, err);
    if (!text)
        goto done;
    /* Frame by frame without blocking, straight from our buffers (no
       zmsg): ZeroMQ queues a multipart message whole or not at all, so
       only the first send can fail with EAGAIN. */
    void *handle = zsock_resolve (sock);
    int more = ZMQ_SNDMORE | ZMQ_DONTWAIT;
    if ((routing_id
         && zmq_send (handle, zframe_data (routing_id),
                      zframe_size (routing_id), more)
                < 0)
        || zmq_send (handle, HEARTH_PROTO_TAG, strlen (HEARTH_PROTO_TAG), more)
               < 0
        || zmq_send (handle, name, strlen (name), more) < 0
        || s_send_body (handle, &buf, self->nframes ? more : ZMQ_DONTWAIT)
               < 0) {
        hearth_errcode (err, "send_failed", "cannot send %s: %s", name,
                        zmq_strerror (errno));
        goto done;
    }
    for (size_t i = 0; i < self->nframes; i++) {
        int flags = ZFRAME_DONTWAIT | (i + 1 < self->nframes ? ZFRAME_MORE : 0);
        if (self->borrowed && self->borrowed[i])
            flags |= ZFRAME_REUSE; /* by reference: the caller keeps it */
        if (zframe_send (&self->frames[i], sock, flags) < 0) {
            hearth_errcode (err, "send_failed", "cannot send %s: %s", name,
                            zmq_strerror (errno));
            goto done;
        }
    }
    rc = 0;
done:;
    int saved = errno;
    if (text)
        hearth_jsonbuf_release (&buf);
    hearth_msg_destroy (self_p);
    errno = saved;
    return rc;
}

/* A metadata property of part into buf ("" when absent). */
static void
s_property (zmq_msg_t *part, const char *name, char *buf, size_t size)
{
    const char *value = zmq_msg_gets (part, name);
    snprintf (buf, size, "%s", value ? value : "");
}

hearth_msg_t *
hearth_msg_recv (zsock_t *sock, zframe_t **routing_id_p, hearth_error_t *err)
{
    return hearth_msg_recv_from (sock, routing_id_p, NULL, err);
}

static hearth_msg_t *s_recv (zsock_t *sock, zframe_t **routing_id_p,
                             hearth_sender_t *sender, int flags, bool *none,
                             hearth_error_t *err, hearth_msg_t **refused_p);

hearth_msg_t *
hearth_msg_recv_from (zsock_t *sock, zframe_t **routing_id_p,
                      hearth_sender_t *sender, hearth_error_t *err)
{
    bool none = false;
    return s_recv (sock, routing_id_p, sender, 0, &none, err, NULL);
}

/* The code of a socket that cannot be read at all (hearth_recv_broken). */
static const char s_socket_failed[] = "socket_failed";

bool
hearth_recv_broken (const hearth_error_t *err)
{
    return err->code && strcmp (err->code, s_socket_failed) == 0;
}

hearth_msg_t *
hearth_msg_try_recv_from (zsock_t *sock, zframe_t **routing_id_p,
                          hearth_sender_t *sender, bool *none,
                          hearth_error_t *err)
{
    *none = false;
    return s_recv (sock, routing_id_p, sender, ZMQ_DONTWAIT, none, err, NULL);
}

hearth_msg_t *
hearth_msg_try_recv_refused (zsock_t *sock, zframe_t **routing_id_p, bool *none,
                             hearth_error_t *err, hearth_msg_t **refused_p)
{
    *none = false;
    *refused_p = NULL;
    return s_recv (sock, routing_id_p, NULL, ZMQ_DONTWAIT, none, err,
                   refused_p);
}

/* Receive and decode; flags ZMQ_DONTWAIT: *none set when no message
   waited (then NULL, err untouched); refused_p (or NULL) as
   hearth_msg_try_recv_refused's. */
static hearth_msg_t *
s_recv (zsock_t *sock, zframe_t **routing_id_p, hearth_sender_t *sender,
        int flags, bool *none, hearth_error_t *err, hearth_msg_t **refused_p)
{
    /* The routing id and the header frames stay in zmq_msg_t's; only the
       binary frames become zframes. */
    void *handle = zsock_resolve (sock);
    zmq_msg_t part[4];
    size_t want = routing_id_p ? 4 : 3, nparts = 0, alloc = 0;
    s_parts_t p = {.count = 0};
    bool more = true, ok = true;
    while (more && nparts < want) {
        zmq_msg_init (&part[nparts]);
        /* the other parts of a message come with its first */
        if (zmq_msg_recv (&part[nparts], handle, nparts ? 0 : flags) < 0) {
            zmq_msg_close (&part[nparts]);
            if (nparts == 0 && errno == EAGAIN && (flags & ZMQ_DONTWAIT)) {
                *none = true;
                return NULL;
            }
            if (nparts == 0 && errno != EINTR && (flags & ZMQ_DONTWAIT)) {
                /* Nothing taken and nothing will be: a reader that
                   tried again at once would spin (ETERM, ENOTSOCK). */
                hearth_errcode (err, s_socket_failed, "receive failed: %s",
                                zmq_strerror (errno));
                if (sender)
                    *sender = (hearth_sender_t){""};
                return NULL;
            }
            ok = false;
            break;
        }
        more = zmq_msg_more (&part[nparts++]);
    }
    while (ok && more) {
        zframe_t *frame = zframe_recv (sock);
        if (!frame) {
            ok = false;
            break;
        }
        more = zframe_more (frame);
        p.count++;
        ok = s_add_binary (&p, &alloc, &frame) == 0;
    }
    hearth_msg_t *self = NULL;
    size_t first = routing_id_p ? 1 : 0;
    if (sender && nparts > 0) {
        /* Every part of a message carries its connection's metadata. */
        s_property (&part[nparts - 1], "Peer-Address", sender->address,
                    sizeof sender->address);
        s_property (&part[nparts - 1], "User-Id", sender->user_id,
                    sizeof sender->user_id);
    }
    else if (sender)
        *sender = (hearth_sender_t){""};
    if (!ok)
        hearth_errcode (err, "recv_failed", "receive failed: %s",
                        zmq_strerror (errno));
    else if (routing_id_p && nparts == 0)
        hearth_errcode (err, "truncated", "empty message");
    else {
        if (routing_id_p)
            *routing_id_p =
                zframe_new (zmq_msg_data (&part[0]), zmq_msg_size (&part[0]));
        for (size_t i = first; i < nparts; i++) {
            p.data[i - first] = zmq_msg_data (&part[i]);
            p.size[i - first] = zmq_msg_size (&part[i]);
        }
        p.count += nparts - first;
        self = s_decode (&p, err, refused_p);
    }
    for (size_t i = 0; i < p.nframes; i++)
        zframe_destroy (&p.frames[i]);
    free (p.frames);
    for (size_t i = 0; i < nparts; i++)
        zmq_msg_close (&part[i]);
    return self;
}

hearth_msg_t *
hearth_error_new (const char *code, const char *message, const char *command)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_ERROR);
    if (!msg)
        return NULL;
    char text[HEARTH_ERROR_TEXT_MAX];
    snprintf (text, sizeof text, "%s", message ? message : "");
    cJSON_AddStringToObject (msg->body, "code", code && *code ? code : "error");
    cJSON_AddStringToObject (msg->body, "message", text);
    if (command && strlen (command) <= 64)
        cJSON_AddStringToObject (msg->body, "command", command);
    return msg;
}

int
hearth_send_error (zsock_t *sock, zframe_t *routing_id, const char *code,
                   const char *message, const char *command)
{
    hearth_msg_t *msg = hearth_error_new (code, message, command);
    return msg ? hearth_msg_send (&msg, sock, routing_id, NULL) : -1;
}

const char *
hearth_json_str (const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, name);
    return cJSON_IsString (v) ? v->valuestring : NULL;
}

int64_t
hearth_json_int (const cJSON *obj, const char *name, int64_t dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, name);
    return cJSON_IsNumber (v) ? (int64_t) v->valuedouble : dflt;
}

bool
hearth_json_bool (const cJSON *obj, const char *name, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (obj, name);
    return cJSON_IsBool (v) ? cJSON_IsTrue (v) : dflt;
}

bool
hearth_json_depth_ok (const char *text, size_t len, int max_depth)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        }
        else if (c == '"')
            in_string = true;
        else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                return false;
        }
        else if (c == '}' || c == ']')
            depth--;
    }
    return true;
}
