import { execFile } from 'node:child_process';
import { GENEROUS_LIMITS, sendingAccount } from '../../testing/sending-account';
import { startTestApi, type TestApi } from '../../testing/test-api';

/**
 * django-anymail's Postmark backend (Debian's python3-django-anymail), run by the system Python
 * with its settings made in the script, sends one message with POSTMARK_API_URL pointed here.
 */
const SCRIPT = `
import json, sys
from django.conf import settings
request = json.load(sys.stdin)
settings.configure(
    EMAIL_BACKEND='anymail.backends.postmark.EmailBackend',
    ANYMAIL={'POSTMARK_SERVER_TOKEN': request['token'], 'POSTMARK_API_URL': request['url']},
)
import django
django.setup()
from django.core.mail import EmailMultiAlternatives
if 'template' in request:
    message = EmailMultiAlternatives(from_email=request['from'], to=['Ann <ann@example.test>'])
    message.template_id = request['template']
    message.merge_global_data = {'name': 'Ann'}
else:
    message = EmailMultiAlternatives('From Django', 'Plain text', request['from'], ['Ann <ann@example.test>'], cc=['cy@example.test'],
                                     reply_to=['support@acme.test'], headers={'X-Origin': 'django'})
    message.attach_alternative('<p>HTML</p>', 'text/html')
    message.attach('notes.txt', 'attached', 'text/plain')
    message.tags = ['signup']
    message.metadata = {'user': '7'}
message.send()
status = message.anymail_status
print(json.dumps({'message_id': status.message_id, 'status': sorted(status.status)}))
`;

function sendWithAnymail(input: { token: string; url: string; from: string; template?: string }): Promise<{ message_id: string; status: string[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', ['-c', SCRIPT], (error, stdout, stderr) => {
      if (error) return reject(new Error(`django-anymail failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout) as { message_id: string; status: string[] });
    });
    child.stdin!.end(JSON.stringify(input));
  });
}

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

it('sends through django-anymail with POSTMARK_API_URL, and the message is at /v1', async () => {
  const acme = await sendingAccount(api, { limits: GENEROUS_LIMITS });
  const sent = await sendWithAnymail({ token: acme.sending_key, url: `${await api.listen()}/postmark/`, from: `Acme <${acme.sender.email}>` });
  expect(sent.status).toEqual(['sent']);
  const v1 = await acme.get(`/v1/emails/${sent.message_id}`);
  expect(v1.status).toBe(200);
  expect(v1.body).toMatchObject({ subject: 'From Django', to: ['ann@example.test'], cc: ['cy@example.test'], tags: { tag: 'signup', user: '7' }, reply_to: ['support@acme.test'] });
  expect(v1.body.attachments).toEqual([{ filename: 'notes.txt', content_type: 'text/plain', size: 8, inline: false }]);
  expect(v1.body.deliveries.map((d: { recipient: string }) => d.recipient)).toEqual(['ann@example.test', 'cy@example.test']);
});

it('sends a template through django-anymail by alias or by its tpl_ id (which anymail sends as TemplateAlias)', async () => {
  const acme = await sendingAccount(api, { domain: 'anymail-templates.test', limits: GENEROUS_LIMITS });
  const created = await api.http
    .post('/v1/templates')
    .set('Authorization', `Bearer ${acme.management_key}`)
    .send({ name: 'Welcome', alias: 'anymail-welcome', subject: 'Hi {{name}}', html: '<p>Hello {{name}}</p>' });
  expect(created.status).toBe(201);
  for (const template of ['anymail-welcome', created.body.id]) {
    const sent = await sendWithAnymail({ token: acme.sending_key, url: `${await api.listen()}/postmark/`, from: acme.sender.email, template });
    expect(sent.status).toEqual(['sent']);
    expect((await acme.get(`/v1/emails/${sent.message_id}`)).body).toMatchObject({ subject: 'Hi Ann', template: { id: created.body.id } });
  }
});
