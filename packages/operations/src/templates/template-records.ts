// The templates of an account and their versions, as the stores keep them.
export {
  createTemplate,
  deleteTemplate,
  findTemplate,
  listTemplates,
  listTemplateVersions,
  updateTemplate,
  type Template,
  type TemplateFields,
  type TemplateVersion,
  type TemplateWriteResult,
} from '@mailer/db';
