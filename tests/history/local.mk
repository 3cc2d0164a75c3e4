# hearth-history's tests: cmocka programs over its pure parts (linked with
# history/libhistory.la, the program's own code) and integration scripts
# with real drivers (tests/lib/driver.sh).
HIST_UNIT_TESTS = tests/history/test_hist_parse tests/history/test_hist_dir \
	tests/history/test_hist_pages
check_PROGRAMS += $(HIST_UNIT_TESTS)
TESTS += $(HIST_UNIT_TESTS)
hist_unit_libs = history/libhistory.la $(CORE_LIBS) $(CMOCKA_LIBS) -lm

tests_history_test_hist_parse_SOURCES = tests/history/test_hist_parse.c \
	tests/unit/testutil.h
tests_history_test_hist_parse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_history_test_hist_parse_LDADD = $(hist_unit_libs)

tests_history_test_hist_dir_SOURCES = tests/history/test_hist_dir.c \
	tests/unit/testutil.h
tests_history_test_hist_dir_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_history_test_hist_dir_LDADD = $(hist_unit_libs)

tests_history_test_hist_pages_SOURCES = tests/history/test_hist_pages.c \
	tests/unit/testutil.h
tests_history_test_hist_pages_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_history_test_hist_pages_LDADD = $(hist_unit_libs)

HIST_TESTS = tests/history/test-history.sh tests/history/test-history-bad.sh \
	tests/history/test-history-web.sh tests/history/test-history-browser.sh \
	tests/history/test-history-bounds.sh tests/history/test-history-links.sh
TESTS += $(HIST_TESTS)
EXTRA_DIST += $(HIST_TESTS)
# test-history-browser.sh keeps its screenshots and console log here.
clean-local: clean-history-browser-artifacts
clean-history-browser-artifacts:
	rm -rf tests/history/test-history-browser-artifacts
.PHONY: clean-history-browser-artifacts
