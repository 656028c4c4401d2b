// libyaml (Debian libyaml-dev): the YAML 1.1/1.2 scanner and parser Yams wraps, used directly
// through its event API by ReshapeYAML.
#include <yaml.h>
