import { errorsUnder, formErrorsOf } from '../../../api/console/web/src/formErrors';

const envelope = (message: string, details: Record<string, unknown>) => ({ error: { code: 'invalid_argument', message, details } });

/** Where the web console's create forms show a refusal: beside the field the envelope names. */
describe('formErrorsOf', () => {
  it('puts each validation failure at its loc (body dropped), the sentence above the buttons', () => {
    const errors = formErrorsOf(
      envelope('Request validation failed.', {
        errors: [
          { loc: ['body', 'name'], msg: 'Too small', type: 'too_small' },
          { loc: ['body', 'audience', 'tags'], msg: 'A segment needs at least one tag.', type: 'custom' },
          { loc: ['body'], msg: 'Invalid input', type: 'invalid_type' },
        ],
      }),
      'fallback',
    );
    expect(errors).toEqual({ fields: { name: 'Too small', 'audience.tags': 'A segment needs at least one tag.' }, general: 'Invalid input' });
    expect(errorsUnder(errors.fields, 'audience')).toBe('A segment needs at least one tag.');
    expect(errorsUnder(errors.fields, 'audiences')).toBeUndefined();
  });

  it('puts a refusal at its loc, else its field, else the field its reason names', () => {
    expect(formErrorsOf(envelope('No contact can fill {{contact.city}}.', { reason: 'unknown_variable', field: 'contact.city', loc: ['body', 'template', 'variables', 1] }), 'x')).toEqual({
      fields: { 'template.variables.1': 'No contact can fill {{contact.city}}.' },
      general: 'No contact can fill {{contact.city}}.',
    });
    expect(formErrorsOf(envelope('A WhatsApp campaign needs a template.', { reason: 'template_not_found', field: 'template' }), 'x').fields).toEqual({ template: 'A WhatsApp campaign needs a template.' });
    expect(formErrorsOf(envelope("That phone number isn't usable.", { reason: 'invalid_destination' }), 'x').fields).toEqual({ phone: "That phone number isn't usable." });
    expect(formErrorsOf(envelope('Not installed.', { reason: 'not_found' }), 'x')).toEqual({ fields: {}, general: 'Not installed.' });
    expect(formErrorsOf(null, 'The console API answered 502.')).toEqual({ fields: {}, general: 'The console API answered 502.' });
  });
});
