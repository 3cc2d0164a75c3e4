# hearth-history: the applications of an event-log directory, listed or
# summarized (docs/history.md).  Its files but main.c form a convenience
# library so that the unit tests (tests/history/) link the same code.
bin_PROGRAMS += hearth-history
noinst_LTLIBRARIES += history/libhistory.la
history_libhistory_la_SOURCES = history/evline.c history/evline.h \
	history/appsum.c history/appsum.h history/scan.c history/scan.h \
	history/live.c history/live.h history/index.c history/index.h \
	history/list.c history/list.h history/detail.c history/detail.h \
	history/appview.c history/appview.h history/apptext.c history/apptext.h \
	history/tasklog.c history/tasklog.h \
	history/apptimeline.c history/apptimeline.h
hearth_history_SOURCES = history/main.c history/web.c history/web.h
hearth_history_LDADD = history/libhistory.la $(WEB_LIBS) $(CORE_LIBS) -lm
