"""Source text shared between the host build and emitted device code."""

def cc_embedded_text(name, srcs, variable, namespace, last_line = ""):
    """A cc_library defining `extern const char <namespace>::<variable>[]`.

    The array holds the text of `srcs`, concatenated, then `last_line`. A
    file among `srcs` can also be compiled into the host build (as a
    textual header), so that host and device share one definition.
    """
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = [name + ".cc"],
        cmd = ("(echo 'namespace %s {'; " +
               "echo 'extern const char %s[];'; " +
               "echo 'const char %s[] = R\"xl_text('; " +
               "cat $(SRCS); " +
               "echo '%s'; " +
               "echo ')xl_text\";'; " +
               "echo '}  // namespace %s') > $@") %
              (namespace, variable, variable, last_line, namespace),
    )
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
    )
