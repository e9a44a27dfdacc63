#!/bin/sh
echo "coverage is not available in the offline xla_lite build" >&2
exit 1
