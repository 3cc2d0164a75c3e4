# Unit tests: one cmocka program per libcore module.
UNIT_TESTS =
TESTS += $(UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)
unit_libs = $(CORE_LIBS) $(CMOCKA_LIBS)
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
