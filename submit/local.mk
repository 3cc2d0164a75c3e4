# submit/: hearth-submit and hearth-admin, the clients of the master.
bin_PROGRAMS += hearth-submit
hearth_submit_SOURCES = submit/submit.c \
	submit/submit_request.c submit/submit_request.h \
	submit/submit_driver.c submit/submit_driver.h \
	submit/submit_admin.c submit/submit_admin.h
hearth_submit_LDADD = $(JOBFILE_LIBS)

# hearth-admin: an operator's commands (list, kill, drain, resume), over
# hearth-submit's link to the master and its kills.
bin_PROGRAMS += hearth-admin
hearth_admin_SOURCES = submit/admin.c submit/admin_web.c submit/admin_web.h \
	submit/submit_request.c submit/submit_request.h \
	submit/submit_admin.c submit/submit_admin.h
hearth_admin_LDADD = $(CORE_LIBS)

