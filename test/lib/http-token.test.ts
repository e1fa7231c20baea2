import t from 'tap'
import { is_json_media_type, JSON_MEDIA_TYPE } from '../../lib/http-token.js'

t.test('is_json_media_type', async (t) => {
  t.test('is true for application/json and +json types, any case, with parameters', async (t) => {
    for (const type of [
      'application/json',
      'application/json;charset=utf-8',
      'application/json; charset=utf-8',
      'application/json ; charset=utf-8',
      'application/json\t;charset=utf-8',
      'application/json ',
      'APPLICATION/JSON',
      'Application/Json; Charset=UTF-8',
      'application/vnd.api+json',
      'application/problem+json; charset=utf-8',
      'application/merge-patch+JSON',
    ]) {
      t.equal(is_json_media_type(type), true, JSON.stringify(type))
      t.equal(JSON_MEDIA_TYPE.test(type), true, `the pattern agrees: ${JSON.stringify(type)}`)
    }
  })

  t.test('is false for other types, malformed ones and none', async (t) => {
    for (const type of [
      undefined,
      '',
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'text/json',
      'application/jsonx',
      'application/json-seq',
      'application/json+xml',
      'application/+json',
      'application/json x',
      'application/json\tx',
      'application/json, text/plain',
      'application/json/x',
      'application/ json',
      'json',
    ]) {
      t.equal(is_json_media_type(type), false, JSON.stringify(type))
      if (type !== undefined) t.equal(JSON_MEDIA_TYPE.test(type), false, `the pattern agrees: ${JSON.stringify(type)}`)
    }
  })
})
