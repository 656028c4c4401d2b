"""The users transform in Python with orjson: the aiohttp peer's core and the offline figure.

    python py_transform.py FILE > OUT     # offline: read FILE, write the answer to stdout

keyed object -> array sorted by key (code point order, which is UTF-8 byte order), each record
with `objectId` = its key as the first member followed by its own members in their original
order; records that fail the User schema dropped (the checks are written out by hand below,
one per schema keyword); answer {"objects": [...]}.
"""
import sys

import orjson


def _is_str(v):
    return type(v) is str


def valid(key, rec):
    """The User schema by hand. minLength 1 in code points is len(s) >= 1 (len counts code points)."""
    if len(key) < 1:  # objectId: string, minLength 1 (it is the key, always a string)
        return False
    name = rec.get("name")
    if not _is_str(name) or len(name) < 1:  # required, string, minLength 1
        return False
    email = rec.get("email")
    if not _is_str(email) or "@" not in email:  # required, string, pattern "@" (unanchored)
        return False
    if "age" in rec:  # integer (1.0 counts, true does not), minimum 0
        age = rec["age"]
        if type(age) is int:
            if age < 0:
                return False
        elif type(age) is float:
            if not age.is_integer() or age < 0:
                return False
        else:
            return False
    if "tags" in rec:  # array of strings
        tags = rec["tags"]
        if type(tags) is not list:
            return False
        for t in tags:
            if type(t) is not str:
                return False
    if "address" in rec:  # object with string city and zip when present
        a = rec["address"]
        if type(a) is not dict:
            return False
        if "city" in a and not _is_str(a["city"]):
            return False
        if "zip" in a and not _is_str(a["zip"]):
            return False
    return True


def transform(body):
    """Upstream bytes -> (answer bytes, dropped count). Raises ValueError on bad input."""
    doc = orjson.loads(body)
    if doc is None:  # Firebase's empty collection
        doc = {}
    if type(doc) is not dict:
        raise ValueError("not an object")
    out = []
    dropped = 0
    for key in sorted(doc):
        rec = doc[key]
        # a member that is not an object would become {objectId, value}: no name, so dropped
        if type(rec) is dict and valid(key, rec):
            item = {"objectId": key}
            item.update(rec)
            item["objectId"] = key  # the key wins over a record's own objectId
            out.append(item)
        else:
            dropped += 1
    return orjson.dumps({"objects": out}), dropped


def main():
    with open(sys.argv[1], "rb") as f:
        body = f.read()
    answer, _ = transform(body)
    sys.stdout.buffer.write(answer)


if __name__ == "__main__":
    main()
