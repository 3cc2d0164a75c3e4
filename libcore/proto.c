/*  proto.c - encoding and decoding Hearth messages; see proto.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"

/* Frames before the binary ones: version, command, body. */
static const size_t s_header_frames = 3;

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
        zframe_destroy (&self->frames[i]);
    free (self->frames);
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

zmsg_t *
hearth_msg_encode (hearth_msg_t **self_p, hearth_error_t *err)
{
    hearth_msg_t *self = *self_p;
    zmsg_t *zmsg = NULL;
    char *text = NULL;
    if (hearth_msg_check (self, err) < 0)
        goto error;
    if (!(text = cJSON_PrintUnformatted (self->body))) {
        hearth_errcode (err, "no_memory", "out of memory encoding %s",
                        hearth_cmd_name (self->cmd));
        goto error;
    }
    zmsg = zmsg_new ();
    zmsg_addstr (zmsg, HEARTH_PROTO_TAG);
    zmsg_addstr (zmsg, hearth_cmd_name (self->cmd));
    zmsg_addmem (zmsg, text, strlen (text));
    for (size_t i = 0; i < self->nframes; i++)
        zmsg_append (zmsg, &self->frames[i]);
    self->nframes = 0;
    free (text);
    hearth_msg_destroy (self_p);
    return zmsg;
error:
    hearth_msg_destroy (self_p);
    return NULL;
}

/* Copy a frame's bytes into buf as printable text, for error messages. */
static const char *
s_printable (zframe_t *frame, char *buf, size_t size)
{
    size_t n = zframe_size (frame);
    const unsigned char *data = zframe_data (frame);
    size_t i;
    for (i = 0; i < n && i < size - 1; i++)
        buf[i] = isprint (data[i]) ? (char) data[i] : '?';
    buf[i] = '\0';
    return buf;
}

static int
s_check_version (zframe_t *frame, hearth_error_t *err)
{
    char text[32];
    size_t plen = strlen (HEARTH_PROTO_PREFIX);
    if (zframe_size (frame) < plen
        || memcmp (zframe_data (frame), HEARTH_PROTO_PREFIX, plen) != 0)
        return hearth_errcode (err, "bad_protocol",
                               "not a Hearth message "
                               "(frame 0 must be %s)",
                               HEARTH_PROTO_TAG);
    if (!zframe_streq (frame, HEARTH_PROTO_TAG))
        return hearth_errcode (err, "bad_version",
                               "protocol version %s is not supported (this "
                               "peer speaks %s)",
                               s_printable (frame, text, sizeof text),
                               HEARTH_PROTO_TAG);
    return 0;
}

static cJSON *
s_parse_body (zframe_t *frame, hearth_error_t *err)
{
    const char *text = (const char *) zframe_data (frame);
    size_t len = zframe_size (frame);
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
s_decode_header (zmsg_t *zmsg, int *cmd, hearth_error_t *err)
{
    size_t count = zmsg_size (zmsg);
    if (count < s_header_frames) {
        zframe_t *first = zmsg_first (zmsg);
        if (first && s_check_version (first, err) < 0)
            return -1;
        return hearth_errcode (err, "truncated",
                               "a message has at least 3 frames (version, "
                               "command, body), got %zu",
                               count);
    }
    if (count - s_header_frames > HEARTH_MAX_FRAMES)
        return hearth_errcode (err, "too_large", "%zu binary frames exceed %d",
                               count - s_header_frames, HEARTH_MAX_FRAMES);
    if (s_check_version (zmsg_first (zmsg), err) < 0)
        return -1;
    zframe_t *name = zmsg_next (zmsg);
    *cmd = hearth_cmd_lookup ((const char *) zframe_data (name),
                              zframe_size (name));
    if (*cmd < 0) {
        char text[65];
        return hearth_errcode (err, "unknown_command", "unknown command '%s'",
                               s_printable (name, text, sizeof text));
    }
    return 0;
}

hearth_msg_t *
hearth_msg_decode (zmsg_t **zmsg_p, hearth_error_t *err)
{
    zmsg_t *zmsg = *zmsg_p;
    hearth_msg_t *self = NULL;
    int cmd = -1;
    if (!zmsg) {
        hearth_errcode (err, "truncated", "no message");
        return NULL;
    }
    if (s_decode_header (zmsg, &cmd, err) < 0)
        goto error;
    self = calloc (1, sizeof *self);
    if (!self
        || s_reserve_frames (self, zmsg_size (zmsg) - s_header_frames) < 0) {
        hearth_errcode (err, "no_memory", "out of memory");
        goto error;
    }
    self->cmd = cmd;
    zmsg_first (zmsg);
    zmsg_next (zmsg);
    if (!(self->body = s_parse_body (zmsg_next (zmsg), err)))
        goto error;
    for (size_t i = 0; i < s_header_frames; i++) {
        zframe_t *f = zmsg_pop (zmsg);
        zframe_destroy (&f);
    }
    zframe_t *f;
    while ((f = zmsg_pop (zmsg)))
        self->frames[self->nframes++] = f;
    if (hearth_msg_check (self, err) < 0)
        goto error;
    zmsg_destroy (zmsg_p);
    return self;
error:
    hearth_msg_destroy (&self);
    zmsg_destroy (zmsg_p);
    return NULL;
}

int
hearth_msg_send (hearth_msg_t **self_p, zsock_t *sock, zframe_t *routing_id,
                 hearth_error_t *err)
{
    const char *name = hearth_cmd_name ((*self_p)->cmd);
    zmsg_t *zmsg = hearth_msg_encode (self_p, err);
    if (!zmsg)
        return -1;
    if (routing_id) {
        zframe_t *copy = zframe_dup (routing_id);
        zmsg_prepend (zmsg, &copy);
    }
    /* Frame by frame without blocking: ZeroMQ queues a multipart message
       whole or not at all, so only the first send can fail with EAGAIN. */
    zframe_t *frame;
    int rc = 0;
    while ((frame = zmsg_pop (zmsg))) {
        int more = zmsg_size (zmsg) ? ZFRAME_MORE : 0;
        if (zframe_send (&frame, sock, more | ZFRAME_DONTWAIT) < 0) {
            zframe_destroy (&frame);
            rc = hearth_errcode (err, "send_failed", "cannot send %s: %s", name,
                                 zmq_strerror (errno));
            break;
        }
    }
    int saved = errno;
    zmsg_destroy (&zmsg);
    errno = saved;
    return rc;
}

hearth_msg_t *
hearth_msg_recv (zsock_t *sock, zframe_t **routing_id_p, hearth_error_t *err)
{
    zmsg_t *zmsg = zmsg_recv (sock);
    if (!zmsg) {
        hearth_errcode (err, "recv_failed", "receive failed: %s",
                        zmq_strerror (errno));
        return NULL;
    }
    if (routing_id_p) {
        *routing_id_p = zmsg_pop (zmsg);
        if (!*routing_id_p) {
            zmsg_destroy (&zmsg);
            hearth_errcode (err, "truncated", "empty message");
            return NULL;
        }
    }
    return hearth_msg_decode (&zmsg, err);
}

int
hearth_send_error (zsock_t *sock, zframe_t *routing_id, const char *code,
                   const char *message, const char *command)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_ERROR);
    if (!msg)
        return -1;
    char text[HEARTH_ERROR_TEXT_MAX];
    snprintf (text, sizeof text, "%s", message ? message : "");
    cJSON_AddStringToObject (msg->body, "code", code && *code ? code : "error");
    cJSON_AddStringToObject (msg->body, "message", text);
    if (command && strlen (command) <= 64)
        cJSON_AddStringToObject (msg->body, "command", command);
    return hearth_msg_send (&msg, sock, routing_id, NULL);
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
