// The users transform with simdjson's DOM API, for the offline figure beside `reshape apply`.
//
//   g++ -O3 -std=c++17 simdjson_transform.cpp -lsimdjson -o simdjson_transform
//   simdjson_transform parse FILE        # (a) read + parse only; prints the member count
//   simdjson_transform transform FILE    # (b) read + parse + keyed-to-array + validate + sort
//                                        #     + serialize; writes {"objects":[...]} to stdout
//
// The transform: members of the top-level object sorted by key (bytewise), each valid record
// written as {"objectId":KEY, then its own members in their original order}; the User schema
// is checked by hand (see valid()). Records are serialized with simdjson::to_string, which
// writes compact JSON; the objectId is spliced in front of the record's first member.
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace simdjson;

static bool is_string(dom::element e) { return e.type() == dom::element_type::STRING; }

// JSON Schema's integer (1.0 counts) that is >= 0.
static bool is_nonneg_integer(dom::element e) {
  switch (e.type()) {
    case dom::element_type::INT64: return int64_t(e) >= 0;
    case dom::element_type::UINT64: return true;
    case dom::element_type::DOUBLE: {
      double d = double(e);
      return std::isfinite(d) && d == std::floor(d) && d >= 0;
    }
    default: return false;
  }
}

// The User schema by hand, in one pass over the record's members. minLength 1 in code points
// is "non-empty" (any code point takes at least one byte).
static bool valid(std::string_view key, dom::object rec, bool &has_object_id) {
  has_object_id = false;
  if (key.empty()) return false;  // objectId: minLength 1
  bool name_ok = false, email_ok = false;
  for (auto field : rec) {
    std::string_view k = field.key;
    dom::element v = field.value;
    if (k == "name") {
      if (!is_string(v) || std::string_view(v).empty()) return false;
      name_ok = true;
    } else if (k == "email") {
      if (!is_string(v) || std::string_view(v).find('@') == std::string_view::npos) return false;
      email_ok = true;
    } else if (k == "age") {
      if (!is_nonneg_integer(v)) return false;
    } else if (k == "tags") {
      if (v.type() != dom::element_type::ARRAY) return false;
      for (dom::element t : dom::array(v))
        if (!is_string(t)) return false;
    } else if (k == "address") {
      if (v.type() != dom::element_type::OBJECT) return false;
      for (auto af : dom::object(v))
        if ((af.key == "city" || af.key == "zip") && !is_string(af.value)) return false;
    } else if (k == "objectId") {
      has_object_id = true;  // the key replaces its value (keyed-to-array's default conflict rule)
    }
  }
  return name_ok && email_ok;  // required: name, email (objectId is always there)
}

// A JSON string literal for a member name (push ids need no escapes, but be correct anyway).
static void append_quoted(std::string &out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { out += '\\'; out += char(c); }
    else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
    else out += char(c);
  }
  out += '"';
}

int main(int argc, char **argv) {
  if (argc != 3 || (std::strcmp(argv[1], "parse") != 0 && std::strcmp(argv[1], "transform") != 0)) {
    std::fprintf(stderr, "usage: %s parse|transform FILE\n", argv[0]);
    return 2;
  }
  padded_string json;
  if (auto error = padded_string::load(argv[2]).get(json)) {
    std::fprintf(stderr, "%s: %s\n", argv[2], error_message(error));
    return 1;
  }
  dom::parser parser;
  dom::element doc;
  if (auto error = parser.parse(json).get(doc)) {
    std::fprintf(stderr, "%s: %s\n", argv[2], error_message(error));
    return 1;
  }
  if (std::strcmp(argv[1], "parse") == 0) {
    size_t n = doc.type() == dom::element_type::OBJECT ? dom::object(doc).size() : 0;
    std::printf("%zu members\n", n);
    return 0;
  }
  if (doc.type() != dom::element_type::OBJECT && !doc.is_null()) {
    std::fprintf(stderr, "not an object\n");
    return 1;
  }
  std::vector<std::pair<std::string_view, dom::element>> members;
  if (!doc.is_null()) {
    dom::object top(doc);
    members.reserve(top.size());
    for (auto field : top) members.emplace_back(field.key, field.value);
  }
  // string_view compares as unsigned bytes: the same order as Reshape's `order: key`
  std::sort(members.begin(), members.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });

  std::string out;
  out.reserve(json.size() + 64 * members.size() + 64);
  out += "{\"objects\":[";
  bool first = true;
  size_t dropped = 0;
  for (auto &[key, value] : members) {
    bool has_object_id;
    // a member that is not an object would become {objectId, value}: no name, so dropped
    if (value.type() != dom::element_type::OBJECT || !valid(key, dom::object(value), has_object_id)) {
      dropped++;
      continue;
    }
    if (!first) out += ',';
    first = false;
    if (!has_object_id) {
      // the usual case: the record minified in one call, its opening brace replaced by ours
      out += "{\"objectId\":";
      append_quoted(out, key);
      std::string rec = simdjson::to_string(value);
      if (rec.size() > 2) { out += ','; out.append(rec, 1, std::string::npos); }
      else out += '}';
    } else {
      // a record with its own objectId: that member takes the key as its value, in place
      out += '{';
      bool any = false;
      for (auto field : dom::object(value)) {
        if (any) out += ',';
        any = true;
        append_quoted(out, field.key);
        out += ':';
        if (field.key == "objectId") append_quoted(out, key);
        else out += simdjson::to_string(field.value);
      }
      out += '}';
    }
  }
  out += "]}";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fprintf(stderr, "%zu dropped\n", dropped);
  return 0;
}
