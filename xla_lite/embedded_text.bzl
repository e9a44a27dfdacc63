"""Source text shared between the host build and emitted device code."""

def cc_embedded_text(name, srcs, variable, namespace, guard):
    """A cc_library defining `extern const char <namespace>::<variable>[]`.

    The array holds the text of `srcs`, concatenated, inside
    `#ifndef <guard>` ... `#endif`, so that a device source may contain it
    more than once. A file among `srcs` can also be compiled into the host
    build (as a textual header): host and device then share one definition.
    """
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = [name + ".cc"],
        cmd = ("(echo 'namespace %s {'; " +
               "echo 'extern const char %s[];'; " +
               "echo 'const char %s[] = R\"xl_text('; " +
               "echo '#ifndef %s'; " +
               "echo '#define %s'; " +
               "cat $(SRCS); " +
               "echo '#endif  // %s'; " +
               "echo ')xl_text\";'; " +
               "echo '}  // namespace %s') > $@") %
              (namespace, variable, variable, guard, guard, guard, namespace),
    )
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
    )
