# The users transform in jq, for the offline figure:  jq -c -f transform.jq FILE
# keyed object -> array sorted by key (jq compares strings bytewise), each record
# {objectId: key} + the record (objectId first, then its members in order; the key wins over
# a record's own objectId), records failing the User schema dropped, {"objects": [...]}.

def str1: type == "string" and length >= 1;              # minLength 1; length counts code points
def opt(f; check): (has(f) | not) or (.[f] | check);     # a property checked only when present
def valid:
  type == "object"
  and (.objectId | str1)
  and (.name | str1)
  and (.email | type == "string" and test("@"))          # pattern "@", unanchored
  and opt("age"; type == "number" and . == floor and . >= 0)
  and opt("tags"; type == "array" and all(.[]; type == "string"))
  and opt("address"; type == "object"
                     and opt("city"; type == "string")
                     and opt("zip"; type == "string"));

{objects: [ (. // {}) | to_entries | sort_by(.key)[]
            # a member that is not an object would become {objectId, value}: no name, dropped
            | select(.value | type == "object")
            | ({objectId: .key} + .value + {objectId: .key})
            | select(valid) ]}
