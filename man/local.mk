# Manual pages: one per program (section 1) and cluster script (section
# 8), made by help2man from the --help texts (man/make-man), and
# hearth-job(5), the job-file format, written by hand.  Without help2man
# (configure says so) only hearth-job(5) is installed.
dist_man5_MANS = man/hearth-job.5
EXTRA_DIST += man/make-man
if HAVE_HELP2MAN
man1_MANS = man/hearth-master.1 man/hearth-worker.1 man/hearth-executor.1 \
	man/hearth-driver.1 man/hearth-submit.1 man/hearth-tail.1 \
	man/hearth-keygen.1 man/hearth-admin.1 man/hearth-history.1
man8_MANS = man/hearth-start-master.sh.8 man/hearth-start-worker.sh.8 \
	man/hearth-start-cluster.sh.8 man/hearth-stop-cluster.sh.8 \
	man/hearth-stop-master.sh.8 man/hearth-stop-worker.sh.8
$(man1_MANS) $(man8_MANS): man/pages.stamp
man/pages.stamp: $(bin_PROGRAMS) $(srcdir)/man/make-man \
		$(srcdir)/scripts/hearth-common.sh $(srcdir)/scripts/start-master.sh \
		$(srcdir)/scripts/start-worker.sh $(srcdir)/scripts/start-cluster.sh \
		$(srcdir)/scripts/stop-cluster.sh $(srcdir)/scripts/stop-master.sh \
		$(srcdir)/scripts/stop-worker.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/man/make-man man '$(abs_top_builddir)' \
		'$(abs_top_srcdir)/scripts' '$(VERSION)' '$(docdir)' && touch $@
CLEANFILES += $(man1_MANS) $(man8_MANS) man/pages.stamp
endif
