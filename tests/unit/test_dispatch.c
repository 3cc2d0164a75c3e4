/*  test_dispatch.c - the one dispatch helper: a message goes to the
    handler of its command's row with the owner's context and the sender
    it was given, a command without a row calls nothing and says so, and
    the first of two rows of one command wins. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/dispatch.h"

/* What the handlers saw. */
typedef struct {
    int calls;                 /* handlers called */
    char which;                /* the last one: 'h', 'e' or 's' */
    const hearth_from_t *from; /* the sender it was given */
    hearth_cmd_t cmd;          /* the command of its message */
} s_seen_t;

static void
s_note (void *self, const hearth_from_t *from, hearth_msg_t *msg, char which)
{
    s_seen_t *seen = self;
    seen->calls++;
    seen->which = which;
    seen->from = from;
    seen->cmd = msg->cmd;
}

static void
s_on_heartbeat (void *self, const hearth_from_t *from, hearth_msg_t *msg)
{
    s_note (self, from, msg, 'h');
}

static void
s_on_error (void *self, const hearth_from_t *from, hearth_msg_t *msg)
{
    s_note (self, from, msg, 'e');
}

static void
s_on_error_shadowed (void *self, const hearth_from_t *from, hearth_msg_t *msg)
{
    s_note (self, from, msg, 's');
}

static const hearth_handler_t s_table[] = {
    {HEARTH_CMD_HEARTBEAT, s_on_heartbeat},
    {HEARTH_CMD_ERROR, s_on_error},
    {HEARTH_CMD_ERROR, s_on_error_shadowed},
};

/* The handler of the message's command, with self and the sender. */
static void
test_calls_the_row_of_the_command (void **state)
{
    (void) state;
    s_seen_t seen = {0};
    zframe_t *rid = zframe_new ("peer", 4);
    hearth_from_t from = {.rid = rid, .key = "KEY", .peer = &seen};
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_ERROR);
    assert_non_null (msg);
    assert_int_equal (
        hearth_dispatch (HEARTH_HANDLERS (s_table), &seen, &from, msg), 0);
    assert_int_equal (seen.calls, 1);
    assert_int_equal (seen.which, 'e'); /* the first row of ERROR */
    assert_ptr_equal (seen.from, &from);
    assert_ptr_equal (seen.from->rid, rid);
    assert_string_equal (seen.from->key, "KEY");
    assert_int_equal (seen.cmd, HEARTH_CMD_ERROR);
    hearth_msg_destroy (&msg);
    msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    assert_non_null (msg);
    assert_int_equal (
        hearth_dispatch (HEARTH_HANDLERS (s_table), &seen, NULL, msg), 0);
    assert_int_equal (seen.calls, 2);
    assert_int_equal (seen.which, 'h');
    assert_null (seen.from); /* a DEALER's one peer: no sender given */
    hearth_msg_destroy (&msg);
    zframe_destroy (&rid);
}

/* A command the table lacks: -1, nothing called; find says NULL. */
static void
test_unknown_command_calls_nothing (void **state)
{
    (void) state;
    s_seen_t seen = {0};
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    assert_non_null (msg);
    assert_int_equal (
        hearth_dispatch (HEARTH_HANDLERS (s_table), &seen, NULL, msg), -1);
    assert_int_equal (seen.calls, 0);
    assert_null (hearth_handler_find (HEARTH_HANDLERS (s_table),
                                      HEARTH_CMD_LAUNCH_TASKS));
    assert_ptr_equal (
        hearth_handler_find (HEARTH_HANDLERS (s_table), HEARTH_CMD_HEARTBEAT),
        &s_table[0]);
    assert_null (hearth_handler_find (s_table, 0, HEARTH_CMD_HEARTBEAT));
    hearth_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_calls_the_row_of_the_command),
        cmocka_unit_test (test_unknown_command_calls_nothing),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
